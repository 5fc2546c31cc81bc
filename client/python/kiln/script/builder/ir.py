"""The IR half of kiln.script.builder (`from kiln.script.builder import ir as I`): `with
I.ir_module():` collects the PrimFuncs built inside it into one IRModule, so a host-side Python
loop can add one function per configuration (TVM's tvm.script.ir_builder.ir.ir_module)."""

from typing import List

from kiln.script._capture import IRModule


class ModuleFrame:
    """`with I.ir_module():`: the functions built inside it, in order."""

    def __init__(self, name: str = "Module"):
        self.name = name
        self.functions: List[object] = []

    def add(self, frame: object) -> None:
        self.functions.append(frame.finish())

    def finish(self) -> IRModule:
        if not self.functions:
            raise RuntimeError("kiln.script.builder: I.ir_module() built no function")
        by_name = {}
        for f in self.functions:
            if f.name in by_name:
                raise ValueError("kiln.script.builder: two functions are named %r (use T.func_name)" % f.name)
            by_name[f.name] = f
        return IRModule(by_name, name=self.name)

    def __enter__(self) -> None:
        from kiln.script.builder import IRBuilder
        IRBuilder.current()._open(self)

    def __exit__(self, *exc) -> None:
        from kiln.script.builder import IRBuilder
        IRBuilder.current()._close(self)


def ir_module(name: str = "Module") -> ModuleFrame:
    """A module frame: the PrimFuncs built inside it form one IRModule (ib.get())."""
    return ModuleFrame(name)
