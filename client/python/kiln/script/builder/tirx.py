"""The TIR half of kiln.script.builder (`from kiln.script.builder import tirx as T`), after TVM's
tvm.script.ir_builder.tirx: frames (`with T.prim_func():`, `with T.grid(...) as (i, j):`,
`with T.sblock("name"):`, `with T.init():`, `with T.If(c):` / `T.Then()` / `T.Else()`,
`with T.While(c):`) and the calls that add to them (T.arg, T.func_name, T.func_attr, T.axis.*,
T.reads, T.writes, T.where, T.alloc_buffer, T.evaluate, T.compute, stores by `B[i] = value`).

Every other `T.<name>(...)` is that TVMScript call as an expression (T.float32(x), T.exp(x),
T.max(a, b), T.Select(c, a, b), ...); a dtype called with no argument (`T.int32()`) is a new
scalar variable, as in TVMScript.
"""

import inspect
from typing import Dict, List, Optional, Sequence, Tuple

from kiln.script._capture import Origin, Script
from kiln.script.builder import Buffer as _Buf
from kiln.script.builder import Frame, IRBuilder, Var, _Call, _emit, _Lambda, _Names, _render, _Stmt, _args, \
    _body_lines, _caller

_LOOP_NAMES = "ijklmn"
_DTYPE_PREFIXES = ("int", "uint", "float", "bfloat")


def _is_dtype(name: str) -> bool:
    if name in ("bool", "handle"):
        return True
    for p in _DTYPE_PREFIXES:
        if name.startswith(p) and name[len(p):].replace("x", "").isdigit():
            return True
    return False


# ---------------------------------------------------------------------------- functions


class PrimFuncFrame(Frame):
    """`with T.prim_func():` (private=, s_tir= as the decorator takes them)."""

    def __init__(self, private: bool = False, s_tir: bool = False):
        super().__init__()
        self.name = "main"
        self.private, self.s_tir = private, s_tir
        self.params: List[Tuple[object, Origin]] = []
        self.attrs: Dict[str, object] = {}
        self.ret = None

    def finish(self) -> "PrimFunc":
        return PrimFunc(self)


class PrimFunc(Script):
    """A PrimFunc the builder made: Session.compile / check / format take it; kiln.script.IRModule
    takes it as a member."""

    kind = "prim_func"
    _aliases = {"T": "tirx"}  # the names its text uses (kiln.script.IRModule writes the imports)

    def __init__(self, frame: PrimFuncFrame):
        self._frame = frame
        self.name = frame.name
        self.filename = frame.origin.filename

    def __repr__(self) -> str:
        return "<kiln.script.builder PrimFunc %s>" % self.name

    def lines(self, renames: Optional[Dict[str, str]] = None, rename: Optional[str] = None,
              indent: int = 0) -> Tuple[List[str], List[Optional[Origin]]]:
        f = self._frame
        names = _Names()
        pad = " " * indent
        options = [k for k, on in (("private=True", f.private), ("s_tir=True", f.s_tir)) if on]
        out = [("%s@T.prim_func%s" % (pad, "(%s)" % ", ".join(options) if options else ""), f.origin),
               ("%sdef %s(" % (pad, rename or f.name), f.origin)]
        for param, origin in f.params:
            if isinstance(param, _Buf):
                name = names.define(param, param.hint)
                out.append(("%s    %s: %s," % (pad, name, param._decl("T.Buffer", names)), origin))
            else:
                name = names.define(param, param.hint)
                out.append(("%s    %s: T.%s," % (pad, name, param.dtype), origin))
        out.append(("%s)%s:" % (pad, " -> T.%s" % f.ret if f.ret else ""), f.origin))
        if f.attrs:
            out.append(("%s    T.func_attr(%s)" % (pad, _render(f.attrs, names)), f.origin))
        out += _body_lines(f.body, names, indent + 4, f.origin) if f.body or not f.attrs else []
        return [line for line, _ in out], [origin for _, origin in out]

    def text(self) -> Tuple[str, List[Optional[Origin]]]:
        lines, origins = self.lines()
        header = ["from kiln.script import tirx as T", ""]
        return "\n".join(header + lines) + "\n", [None, None] + origins


def prim_func(private: bool = False, s_tir: bool = False) -> PrimFuncFrame:
    """A PrimFunc frame: `with T.prim_func():` ... (named by T.func_name, default "main")."""
    return PrimFuncFrame(private, s_tir)


def func_name(name: str) -> None:
    """The PrimFunc's name (its global symbol)."""
    if not name.isidentifier():
        raise ValueError("T.func_name: %r is not an identifier" % name)
    IRBuilder.current()._func().name = name


def func_attr(attrs: Dict[str, object]) -> None:
    """Function attributes (T.func_attr in TVMScript)."""
    IRBuilder.current()._func().attrs.update(attrs)


def func_ret(dtype: str) -> None:
    """The PrimFunc's return type (`-> T.int32`)."""
    IRBuilder.current()._func().ret = dtype


def arg(name: str, value):
    """A parameter: a Buffer (T.Buffer(shape, dtype)) or a scalar variable (T.int32()); returns it."""
    if not isinstance(value, (_Buf, Var)):
        raise TypeError("T.arg(%r): a parameter is a T.Buffer or a scalar variable (T.int32())" % name)
    value.hint = name
    IRBuilder.current()._func().params.append((value, _caller()))
    return value


def Buffer(shape, dtype="float32", **kwargs) -> _Buf:  # noqa: N802 (TVMScript's spelling)
    """A buffer for T.arg: T.Buffer((M, N), "float32") (strides=, scope=, ... as in TVMScript)."""
    return _Buf(shape, dtype, "buf", kwargs)


# ---------------------------------------------------------------------------- loops


class _LoopFrame(Frame):
    def __init__(self, kind: str, args: Sequence[object], kwargs: Dict[str, object], count: int):
        super().__init__(self._head)
        self.kind, self.args, self.kwargs = kind, tuple(args), dict(kwargs)
        hints = [_LOOP_NAMES[k] if k < len(_LOOP_NAMES) else "i%d" % k for k in range(count)]
        self.vars = [Var(h) for h in hints]
        self._value = self.vars[0] if kind != "grid" else tuple(self.vars)

    def _head(self, names: _Names) -> str:
        targets = ", ".join(names.define(v, v.hint) for v in self.vars)
        return "for %s in T.%s(%s):" % (targets, self.kind, _args(self.args, self.kwargs, names))


def _loop(kind: str):
    def make(start, stop=None, **kwargs) -> _LoopFrame:
        return _LoopFrame(kind, (start,) if stop is None else (start, stop), kwargs, 1)
    make.__name__ = kind
    make.__doc__ = "`with T.%s(start, stop) as i:` (or T.%s(extent)): a %s loop." % (kind, kind, kind)
    return make


serial = _loop("serial")
parallel = _loop("parallel")
vectorized = _loop("vectorized")
unroll = _loop("unroll")


def thread_binding(start, stop=None, thread: str = "", **kwargs) -> _LoopFrame:
    """`with T.thread_binding(extent, thread="threadIdx.x") as tx:`."""
    return _LoopFrame("thread_binding", (start,) if stop is None else (start, stop), dict(kwargs, thread=thread), 1)


def grid(*extents) -> _LoopFrame:
    """`with T.grid(M, N) as (i, j):`: nested serial loops."""
    if not extents:
        raise ValueError("T.grid needs at least one extent")
    return _LoopFrame("grid", extents, {}, len(extents))


# ---------------------------------------------------------------------------- blocks


class _BlockFrame(Frame):
    def __init__(self, name: str):
        super().__init__(lambda names: "with T.sblock(%s):" % _render(name, names))


def sblock(name: str = "") -> Frame:
    """`with T.sblock("name"):` (T.block is TVM's older spelling)."""
    return _BlockFrame(name)


def init() -> Frame:
    """`with T.init():` inside a reduction block."""
    return Frame(lambda names: "with T.init():")


class _Axis:
    """T.axis.spatial / reduce / scan / opaque (and S, R) and T.axis.remap."""

    def _axis(self, kind: str, dom, binding, dtype: str = "int32") -> Var:
        hint = "v" + binding.hint if isinstance(binding, Var) else "v"
        v = Var(hint, dtype)
        _emit(_Stmt(lambda n: "%s = T.axis.%s(%s)" % (n.define(v, v.hint), kind, _args([dom, binding], {}, n))))
        return v

    def spatial(self, dom, binding, dtype: str = "int32") -> Var:
        return self._axis("spatial", dom, binding, dtype)

    def reduce(self, dom, binding, dtype: str = "int32") -> Var:
        return self._axis("reduce", dom, binding, dtype)

    def scan(self, dom, binding, dtype: str = "int32") -> Var:
        return self._axis("scan", dom, binding, dtype)

    def opaque(self, dom, binding, dtype: str = "int32") -> Var:
        return self._axis("opaque", dom, binding, dtype)

    S = spatial
    R = reduce

    def remap(self, kinds: str, bindings: Sequence[Var]) -> List[Var]:
        bindings = list(bindings)
        if len(kinds) != len(bindings):
            raise ValueError("T.axis.remap: %d kinds for %d bindings" % (len(kinds), len(bindings)))
        vs = [Var("v" + b.hint if isinstance(b, Var) else "v") for b in bindings]
        _emit(_Stmt(lambda n: "%s = T.axis.remap(%s, %s)" % (", ".join(n.define(v, v.hint) for v in vs) +
                                                             ("," if len(vs) == 1 else ""),
                                                             _render(kinds, n), _render(bindings, n))))
        return vs


axis = _Axis()


def _statement_call(name: str):
    def call(*args, **kwargs) -> None:
        flat = [a for x in args for a in (x if isinstance(x, (list, tuple)) and name in ("reads", "writes") else [x])]
        _emit(_Stmt(lambda n: "T.%s(%s)" % (name, _args(flat, kwargs, n))))
    call.__name__ = name
    call.__doc__ = "T.%s(...) as a statement of the block or function being built." % name
    return call


reads = _statement_call("reads")
writes = _statement_call("writes")
where = _statement_call("where")
sblock_attr = _statement_call("sblock_attr")
evaluate = _statement_call("evaluate")


def _alloc(call: str):
    def alloc(shape, dtype="float32", **kwargs):
        b = _Buf(shape, dtype, "buf", kwargs)
        _emit(_Stmt(lambda n: "%s = %s" % (n.define(b, b.hint), b._decl("T." + call, n))))
        return b
    alloc.__name__ = call
    alloc.__doc__ = "`B = T.%s(shape, dtype)`: a new buffer (name it with def_)." % call
    return alloc


alloc_buffer = _alloc("alloc_buffer")
sblock_alloc_buffer = _alloc("sblock_alloc_buffer")


def buffer_store(buffer, value, indices) -> None:
    """`buffer[indices] = value`."""
    buffer[tuple(indices)] = value


# ---------------------------------------------------------------------------- control flow


class _IfFrame(Frame):
    def __init__(self, cond):
        super().__init__(lambda names: "if %s:" % _render(cond, names))
        self.then: Optional[Frame] = None
        self.orelse: Optional[Frame] = None

    def add(self, item: object) -> None:
        if isinstance(item, _ThenFrame) and self.then is None:
            self.then = item
        elif isinstance(item, _ElseFrame) and self.then is not None and self.orelse is None:
            self.orelse = item
        else:
            raise RuntimeError("kiln.script.builder: T.If holds one T.Then() and then at most one T.Else()")

    def lines(self, names: _Names, indent: int):
        if self.then is None:
            raise RuntimeError("kiln.script.builder: T.If without T.Then()")
        out = [(" " * indent + self.header(names), self.origin)]
        out += _body_lines(self.then.body, names, indent + 4, self.then.origin)
        if self.orelse is not None:
            out.append((" " * indent + "else:", self.orelse.origin))
            out += _body_lines(self.orelse.body, names, indent + 4, self.orelse.origin)
        return out


class _ThenFrame(Frame):
    pass


class _ElseFrame(Frame):
    pass


def If(cond) -> Frame:  # noqa: N802 (TVM's spelling)
    """`with T.If(cond):` holding `with T.Then():` and optionally `with T.Else():`."""
    return _IfFrame(cond)


def Then() -> Frame:  # noqa: N802
    return _ThenFrame()


def Else() -> Frame:  # noqa: N802
    return _ElseFrame()


def While(cond) -> Frame:  # noqa: N802
    """`with T.While(cond):`: a while loop."""
    return Frame(lambda names: "while %s:" % _render(cond, names))


# ---------------------------------------------------------------------------- T.compute


def compute(out, fcompute, **kwargs):
    """kilnd's T.compute: `T.compute(C, lambda i, j: ...)` (into a buffer) or
    `T.compute(shape, fcompute)` (a new buffer, returned). `fcompute` is a Python function of the
    indices (spatial, then reduction ones with reduce=); it is called once with index variables to
    get the expression. combiner=, init=, name=, dtype= as in TVMScript's T.compute."""
    params = [p for p in inspect.signature(fcompute).parameters.values()]
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        raise TypeError("T.compute: fcompute takes plain positional parameters (one per index)")
    lam = _Lambda([Var(p.name) for p in params], None)
    lam.body = fcompute(*lam.params)
    if isinstance(out, _Buf):
        _emit(_Stmt(lambda n: "T.compute(%s)" % _args([out, lam], kwargs, n)))
        return None
    b = _Buf(out, kwargs.get("dtype", "float32"), "compute")
    _emit(_Stmt(lambda n: "%s = T.compute(%s)" % (n.define(b, b.hint), _args([out, lam], kwargs, n))))
    return b


# ---------------------------------------------------------------------------- everything else


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)

    def call(*args, **kwargs):
        if _is_dtype(name) and not args and not kwargs:
            return Var("v", name)
        return _Call("T." + name, args, kwargs)
    call.__name__ = name
    return call
