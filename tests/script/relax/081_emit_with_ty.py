# R.emit_with_ty(op_name, args, ty_args): the operator call TVM builds from its IR name (prints as R.builtin.alloc_tensor).
from tvm.script import relax as R
from tvm.script import ir as I

@I.ir_module
class M:
    @R.function
    def foo(x: R.Tensor((2, 3), "int32")) -> R.Tensor((2, 3), "int32"):
        R.func_attr({"relax.force_pure": True})
        gv0: R.Tensor((2, 3), dtype="int32") = R.emit_with_ty(
            "relax.builtin.alloc_tensor",
            (R.shape([2, 3]), R.dtype("int32"), R.prim_value(0), R.str("global")),
            R.Tensor((2, 3), dtype="int32"),
        )
        return gv0
