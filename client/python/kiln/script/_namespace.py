"""Shared by kiln.script's ir, tirx and relax modules: the decorators' common shape, and the
placeholder that lets Python evaluate TVMScript annotations (`A: T.Buffer((M,), "float32")`) at
definition time without meaning anything by them (kilnd reads the text, not these objects)."""

import sys
from typing import Callable, Optional

from kiln.script._capture import Definition


class Placeholder:
    """Whatever `T.<name>` stands for while Python evaluates a definition; it is never used."""

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return "<TVMScript %s>" % self._name

    def __getattr__(self, name: str) -> "Placeholder":
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder("%s.%s" % (self._name, name))

    def __call__(self, *args, **kwargs) -> "Placeholder":
        return self

    def __getitem__(self, key) -> "Placeholder":
        return self

    def __iter__(self):
        raise TypeError("%s is TVMScript: it has a value only inside kilnd" % self._name)


def _same(self, *args):
    return self


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos", "and", "or", "xor", "lshift",
            "rshift", "invert", "lt", "le", "gt", "ge", "matmul"):
    setattr(Placeholder, "__%s__" % _op, _same)
    setattr(Placeholder, "__r%s__" % _op, _same)


def decorator(kind: str) -> Callable:
    """A decorator usable bare (`@T.prim_func`) or with TVMScript's options (`@T.prim_func(private=True)`):
    the options stay in the captured text, which is what kilnd reads."""

    def decorate(obj: Optional[object] = None, **options):
        def wrap(target: object):
            frame = sys._getframe(1)
            if "__module__" in frame.f_locals and "__qualname__" in frame.f_locals:
                return target  # a member of an @I.ir_module class: the module captures the whole class
            return Definition(kind, target, frame)

        if obj is None:
            return wrap
        frame = sys._getframe(1)
        if "__module__" in frame.f_locals and "__qualname__" in frame.f_locals:
            return obj
        return Definition(kind, obj, frame)

    return decorate
