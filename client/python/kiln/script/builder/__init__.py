"""kiln.script.builder: TVM's IRBuilder for Python, building IR by running ordinary Python.

    from kiln.script.builder import IRBuilder, ir as I, tirx as T

    with IRBuilder() as ib:
        with I.ir_module():
            for tile in (2, 4, 8):               # host-side Python: one function per tile size
                with T.prim_func():
                    T.func_name("scale_%d" % tile)
                    A = T.arg("A", T.Buffer((64,), "float32"))
                    B = T.arg("B", T.Buffer((64,), "float32"))
                    with T.grid(64 // tile, tile) as (io, ii):
                        B[io * tile + ii] = A[io * tile + ii] * 2.0
    sess.compile(ib.get())

The calls mirror tvm.script.ir_builder (frames opened with `with`, T.arg, T.grid, T.sblock,
T.axis.*, buffer stores by subscript assignment, expressions by Python operators), so code that
builds IR with TVM's IRBuilder reads the same here. What it builds is TVMScript text, which kilnd
parses with the same parser as everything else (the RFC's "the parser is a thin layer over the
IRBuilder": here the builder is a thin layer over the parser's input). Each line of that text
remembers the Python line that made it, so kilnd's diagnostics point at the user's builder code.

Names: T.arg names parameters; def_(name, value) (or def_many) names a loop variable, block axis or
buffer; others get short default names (i, j, k for loops, vi for the axis bound to i, ...) made
unique per function. The current builder is thread-local, as in TVM.
"""

import json
import numbers
import os
import sys
import threading
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy

from kiln.script._capture import Origin, Script

_HERE = os.path.dirname(os.path.abspath(__file__))
_current = threading.local()


# ---------------------------------------------------------------------------- where code comes from


def _caller() -> Origin:
    """The user's line that is calling into the builder (the first frame outside this package)."""
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _HERE:
        f = f.f_back
    if f is None:
        return Origin("<builder>", 0, exact=False)
    return Origin(f.f_code.co_filename, f.f_lineno, exact=False)


# ---------------------------------------------------------------------------- expressions


class _Names:
    """The names of one function's variables and buffers, unique, given as they are defined."""

    _RESERVED = {"T", "I", "R", "lambda", "for", "in", "if", "else", "with", "def", "class", "return", "range",
                 "and", "or", "not", "is", "None", "True", "False", "pass", "while", "as", "from", "import"}

    def __init__(self):
        self._by_id: Dict[int, str] = {}
        self._keep: List[object] = []  # ids stay valid while the names are in use
        self._used = set(self._RESERVED)

    def define(self, obj: object, hint: str) -> str:
        name, k = hint, 1
        while name in self._used:
            name, k = "%s_%d" % (hint, k), k + 1
        self._used.add(name)
        self._by_id[id(obj)] = name
        self._keep.append(obj)
        return name

    def of(self, obj: object, hint: str) -> str:
        # Something never defined in this function keeps its hint: kilnd reports it undefined.
        return self._by_id.get(id(obj), hint)


def _render(v: object, names: _Names) -> str:
    if isinstance(v, Expr):
        return v._render(names)
    if isinstance(v, Buffer):
        return names.of(v, v.hint)
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, numbers.Integral):
        return repr(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, numpy.dtype) or (isinstance(v, type) and issubclass(v, numpy.generic)):
        return json.dumps(numpy.dtype(v).name)
    if isinstance(v, tuple):
        items = [_render(x, names) for x in v]
        return "(%s,)" % items[0] if len(items) == 1 else "(%s)" % ", ".join(items)
    if isinstance(v, list):
        return "[%s]" % ", ".join(_render(x, names) for x in v)
    if isinstance(v, dict):
        return "{%s}" % ", ".join("%s: %s" % (_render(k, names), _render(x, names)) for k, x in v.items())
    if isinstance(v, slice):
        if v.step is not None:
            raise TypeError("kiln.script.builder: a slice with a step is not a buffer region")
        return "%s:%s" % ("" if v.start is None else _render(v.start, names),
                          "" if v.stop is None else _render(v.stop, names))
    if v is None:
        return "None"
    raise TypeError("kiln.script.builder: %r (%s) is not an IR value" % (v, type(v).__name__))


def _args(args: Sequence[object], kwargs: Dict[str, object], names: _Names) -> str:
    parts = [_render(a, names) for a in args]
    parts += ["%s=%s" % (k, _render(v, names)) for k, v in kwargs.items()]
    return ", ".join(parts)


class Expr:
    """A TIR expression under construction; Python operators build bigger ones."""

    def _render(self, names: _Names) -> str:
        raise NotImplementedError

    def __bool__(self):
        raise TypeError("an IR expression has no truth value while building: use T.If(cond) / T.Select")

    __hash__ = object.__hash__


def _binop(op: str, reflected: bool = False):
    def method(self, other):
        return _BinOp(op, other, self) if reflected else _BinOp(op, self, other)
    return method


for _name, _op in (("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"), ("mod", "%"),
                   ("pow", "**"), ("and", "&"), ("or", "|"), ("xor", "^"), ("lshift", "<<"), ("rshift", ">>")):
    setattr(Expr, "__%s__" % _name, _binop(_op))
    setattr(Expr, "__r%s__" % _name, _binop(_op, reflected=True))
for _name, _op in (("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="), ("eq", "=="), ("ne", "!=")):
    setattr(Expr, "__%s__" % _name, _binop(_op))
Expr.__neg__ = lambda self: _Unary("-", self)
Expr.__invert__ = lambda self: _Unary("~", self)


class _BinOp(Expr):
    def __init__(self, op: str, a: object, b: object):
        self.op, self.a, self.b = op, a, b

    def _render(self, names: _Names) -> str:
        return "(%s %s %s)" % (_render(self.a, names), self.op, _render(self.b, names))


class _Unary(Expr):
    def __init__(self, op: str, a: object):
        self.op, self.a = op, a

    def _render(self, names: _Names) -> str:
        return "(%s%s)" % (self.op, _render(self.a, names))


class _Call(Expr):
    """`T.<name>(args)`: an intrinsic, a dtype constructor, or any other TVMScript call."""

    def __init__(self, name: str, args: Sequence[object], kwargs: Dict[str, object]):
        self.name, self.args, self.kwargs = name, tuple(args), dict(kwargs)

    def _render(self, names: _Names) -> str:
        return "%s(%s)" % (self.name, _args(self.args, self.kwargs, names))


class Var(Expr):
    """A variable: a scalar parameter, a loop variable or a block axis."""

    def __init__(self, hint: str, dtype: str = "int32"):
        self.hint, self.dtype = hint, dtype

    def _render(self, names: _Names) -> str:
        return names.of(self, self.hint)

    def __repr__(self) -> str:
        return "<kiln.script.builder Var %s: %s>" % (self.hint, self.dtype)


class _Load(Expr):
    def __init__(self, buffer: "Buffer", indices: Tuple[object, ...]):
        self.buffer, self.indices = buffer, indices

    def _render(self, names: _Names) -> str:
        return "%s[%s]" % (names.of(self.buffer, self.buffer.hint), ", ".join(_render(i, names) for i in self.indices))


class _Lambda(Expr):
    def __init__(self, params: List[Var], body: object):
        self.params, self.body = params, body

    def _render(self, names: _Names) -> str:
        params = [names.define(p, p.hint) for p in self.params]
        return "lambda %s: %s" % (", ".join(params), _render(self.body, names))


class Buffer:
    """A buffer: `T.Buffer(shape, dtype)` for a parameter, or one T.alloc_buffer / T.compute made.
    `B[i, j]` reads it (an expression); `B[i, j] = value` stores into the function being built."""

    def __init__(self, shape: object, dtype: object = "float32", hint: str = "buf",
                 kwargs: Optional[Dict[str, object]] = None):
        self.shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        self.dtype = numpy.dtype(dtype).name if not isinstance(dtype, str) else dtype
        self.hint = hint
        self.kwargs = dict(kwargs or {})

    def _decl(self, call: str, names: _Names) -> str:
        return "%s(%s)" % (call, _args([self.shape, self.dtype], self.kwargs, names))

    def __getitem__(self, index) -> Expr:
        return _Load(self, index if isinstance(index, tuple) else (index,))

    def __setitem__(self, index, value) -> None:
        target = self[index]
        _emit(_Stmt(lambda n: "%s = %s" % (_render(target, n), _render(value, n))))

    def __repr__(self) -> str:
        return "<kiln.script.builder Buffer %s %s %s>" % (self.hint, self.shape, self.dtype)


# ---------------------------------------------------------------------------- statements and frames


class _Stmt:
    """One line of the function body, rendered when the text is made (names are final then)."""

    def __init__(self, render, origin: Optional[Origin] = None):
        self.render_line = render
        self.origin = origin or _caller()

    def lines(self, names: _Names, indent: int) -> List[Tuple[str, Origin]]:
        return [(" " * indent + self.render_line(names), self.origin)]


class Frame:
    """A `with` scope of the builder: a header line (or none) and the statements inside it."""

    def __init__(self, header=None):
        self.header = header  # names -> the line opening the scope, or None
        self.body: List[object] = []
        self.origin = _caller()
        self._value = None

    def add(self, item: object) -> None:
        self.body.append(item)

    def lines(self, names: _Names, indent: int) -> List[Tuple[str, Origin]]:
        out = [(" " * indent + self.header(names), self.origin)]
        out += _body_lines(self.body, names, indent + 4, self.origin)
        return out

    def __enter__(self):
        builder = IRBuilder.current()
        builder._open(self)
        return self._value

    def __exit__(self, *exc) -> None:
        IRBuilder.current()._close(self)


def _body_lines(body: List[object], names: _Names, indent: int, origin: Origin) -> List[Tuple[str, Origin]]:
    out: List[Tuple[str, Origin]] = []
    for item in body:
        out += item.lines(names, indent)
    return out or [(" " * indent + "T.evaluate(0)", origin)]


def _emit(item: object) -> None:
    IRBuilder.current()._add(item)


class IRBuilder:
    """The builder: `with IRBuilder() as ib:` makes it current (per thread); ib.get() is what it
    built, a PrimFunc or an IRModule that Session.compile / check / format accept."""

    def __init__(self):
        self._stack: List[object] = []
        self._result: Optional[Script] = None

    @staticmethod
    def current() -> "IRBuilder":
        stack = getattr(_current, "builders", None)
        if not stack:
            raise RuntimeError("kiln.script.builder: no IRBuilder is active (use `with IRBuilder() as ib:`)")
        return stack[-1]

    def __enter__(self) -> "IRBuilder":
        if not hasattr(_current, "builders"):
            _current.builders = []
        _current.builders.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _current.builders.pop()

    def get(self) -> Script:
        """The finished PrimFunc or IRModule (kiln.script.Script objects)."""
        if self._stack:
            raise RuntimeError("kiln.script.builder: get() inside an open frame")
        if self._result is None:
            raise RuntimeError("kiln.script.builder: nothing was built (open I.ir_module() or T.prim_func())")
        return self._result

    # Used by the frames.
    def _open(self, frame: object) -> None:
        from kiln.script.builder.ir import ModuleFrame
        from kiln.script.builder.tirx import PrimFuncFrame
        if isinstance(frame, ModuleFrame):
            if self._stack or self._result is not None:
                raise RuntimeError("kiln.script.builder: I.ir_module() is the outermost frame, once per builder")
        elif isinstance(frame, PrimFuncFrame):
            if self._stack and not isinstance(self._stack[-1], ModuleFrame):
                raise RuntimeError("kiln.script.builder: T.prim_func() goes at the top or directly in I.ir_module()")
            if not self._stack and self._result is not None:
                raise RuntimeError("kiln.script.builder: one PrimFunc per builder; put several in I.ir_module()")
        elif not self._stack or not isinstance(self._stack[-1], Frame):
            raise RuntimeError("kiln.script.builder: this frame belongs inside T.prim_func()")
        self._stack.append(frame)

    def _close(self, frame: object) -> None:
        if not self._stack or self._stack[-1] is not frame:
            raise RuntimeError("kiln.script.builder: frames closed out of order")
        self._stack.pop()
        if self._stack:
            self._stack[-1].add(frame)
        else:
            self._result = frame.finish()

    def _add(self, item: object) -> None:
        if not self._stack or not isinstance(self._stack[-1], Frame):
            raise RuntimeError("kiln.script.builder: statements go inside T.prim_func()")
        self._stack[-1].add(item)

    def _func(self):
        from kiln.script.builder.tirx import PrimFuncFrame
        for frame in reversed(self._stack):
            if isinstance(frame, PrimFuncFrame):
                return frame
        raise RuntimeError("kiln.script.builder: this call belongs inside T.prim_func()")


def def_(name: str, value):
    """Names a variable, block axis or buffer in the text (TVM's IRBuilder.name); returns value."""
    if not isinstance(value, (Var, Buffer)):
        raise TypeError("def_: %r is not a variable or buffer" % (value,))
    if not name.isidentifier():
        raise ValueError("def_: %r is not an identifier" % name)
    value.hint = name
    return value


def def_many(names: Iterable[str], values: Iterable[object]) -> list:
    """def_ for each pair of names and values; returns the values."""
    names, values = list(names), list(values)
    if len(names) != len(values):
        raise ValueError("def_many: %d names for %d values" % (len(names), len(values)))
    return [def_(n, v) for n, v in zip(names, values)]


__all__ = ["IRBuilder", "def_", "def_many", "Buffer", "Var", "Expr", "Frame"]
