# Python values TVM evaluates inside TVMScript: tvm.target.Target(...) (T.target), T.Var(name, dtype), float()/int()/bool() of constants, tvm.cpu() (R.device).
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R
import tvm

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})
    @T.prim_func
    def k(a: T.handle, b: T.handle):
        T.func_attr({"target": tvm.target.Target("llvm", host="llvm")})
        n = T.Var("num_tokens", "int64")
        A = T.match_buffer(a, (n,), "float32")
        m = T.Var("m", ty="int32")
        B = T.match_buffer(b, (m,), "float32")
        B[0] = A[0]
        A[0] = T.float32(float("-inf")) + T.float32(int("3")) + T.Cast("float32", bool(1))

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        y = R.hint_on_device(x, tvm.cpu())
        z = R.const(float("inf"), "float32")
        w = R.add(y, z)
        return w
