# expect-error: 8:5: @I.pyfunc are only allowed in classes that inherit from BasePyModule. Class 'Module' does not inherit from BasePyModule.
# from tvm.script import ir as I
# TVM keeps Python methods only for a class deriving from BasePyModule.

@I.ir_module
class Module:
    @I.pyfunc
    def f(self, x):
        return x
