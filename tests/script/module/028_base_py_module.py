# A BasePyModule class (TVM's module with Python methods): each @I.pyfunc method is any Python,
# kept as its source text on an ExternFunc of its name, and R.call_py_func calls a Python
# function by name. kiln reads, prints and round-trips them; it compiles no Python, so a build
# refuses the module.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T
from tvm.relax.base_py_module import BasePyModule

@I.ir_module
class Module(BasePyModule):
    @I.pyfunc
    def checked_add(self, x, y):
        """Adds two tensors, or fails with a message."""
        try:
            out = self.call_tir(self.add, [x, y], out_ty=R.Tensor((4,), "float32"))
        except (TypeError, ValueError) as err:
            # Reported with the names of the inputs.
            raise RuntimeError(f"add failed: {err}") from err
        return out

    @T.prim_func
    def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            C[i] = A[i] + B[i]

    @I.pyfunc
    def relu(self, x):
        return x.clip(min=0)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.call_py_func("relu", (x,), out_ty=R.Tensor((4,), "float32"))
        return y
