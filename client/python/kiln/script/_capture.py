"""What a kiln.script decorator captures: the definition's source, where it sits in the user's file,
and the Python values its text uses from the enclosing scopes.

A decorated definition is never run by Python: kilnd parses its text. Values the text takes from
outside (`M = 128` at module level, a closure's `dtype`) travel with it as extra vars, which kilnd's
parser binds before reading the text (template capture). Column and line numbers of kilnd's
diagnostics are mapped back to the user's file, so an error points at the line the user wrote.
"""

import ast
import inspect
import linecache
import numbers
import textwrap
import types
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

import numpy

from kiln.errors import CompileError, Diagnostic

# The TVMScript namespaces, by the kiln.script module that stands for each.
_NAMESPACES = {"kiln.script.ir": "ir", "kiln.script.tirx": "tirx", "kiln.script.relax": "relax"}


@dataclass(frozen=True)
class _Segment:
    """Lines [first, first + count) of the text sent to kilnd come from `filename`, starting at
    `file_line`, with `indent` columns of leading whitespace removed."""

    first: int
    count: int
    filename: str
    file_line: int
    indent: int


class Script:
    """A decorated TVMScript definition: a PrimFunc, a Relax function, a macro or an IRModule.

    Pass it to Session.compile / check / format as you would source text. Attributes:
      kind: "prim_func", "function", "macro" or "ir_module".
      name: the Python name of the definition.
      source: its text, dedented, decorators included.
      filename, line: where it starts in the user's file (1-based line).
      captured: the outside values its text uses, by name.
    """

    def __init__(self, kind: str, obj: object, frame: types.FrameType):
        self.kind = kind
        self.name = obj.__name__
        lines, self.line = inspect.getsourcelines(obj)
        self.filename = inspect.getsourcefile(obj) or "<unknown>"
        raw = "".join(lines)
        self.source = textwrap.dedent(raw)
        first = next((l for l in lines if l.strip()), "")
        self._indent = len(first) - len(first.lstrip()) if self.source != raw else 0
        self._aliases: Dict[str, str] = {}
        self.captured: Dict[str, object] = {}
        self._macros: List["Script"] = []
        self._capture(obj, frame)

    def __call__(self, *args, **kwargs):
        raise TypeError("%s %r is TVMScript for kilnd, not Python: compile it with Session.compile()" %
                        (self.kind, self.name))

    def __repr__(self) -> str:
        return "<kiln.script %s %s at %s:%d>" % (self.kind, self.name, self.filename, self.line)

    # ------------------------------------------------------------------ capture

    def _capture(self, obj: object, frame: types.FrameType) -> None:
        scopes: List[Dict[str, object]] = []
        code = getattr(obj, "__code__", None)
        if code is not None and obj.__closure__:
            scopes.append({n: c.cell_contents for n, c in zip(code.co_freevars, obj.__closure__)
                           if _cell_is_set(c)})
        scopes += [dict(frame.f_locals), frame.f_globals]
        for name in _free_names(self.source):
            for scope in scopes:
                if name in scope:
                    self._take(name, scope[name])
                    break
        # The namespaces' aliases, even when only decorators use them (`@T.prim_func`).
        for scope in scopes:
            for name, value in scope.items():
                if isinstance(value, types.ModuleType) and value.__name__ in _NAMESPACES:
                    self._aliases.setdefault(name, _NAMESPACES[value.__name__])

    def _take(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType):
            return  # T, R, I and the like: the header below imports kiln.script's own
        if isinstance(value, Script):
            if value.kind != "macro":
                raise TypeError("%s:%d: %s uses %s %r; only macros can be captured (put functions that call each "
                                "other in one @I.ir_module)" % (self.filename, self.line, self.name, value.kind, name))
            if value not in self._macros:
                self._macros += [m for m in value._macros if m not in self._macros] + [value]
            self._aliases.update(value._aliases)
            return
        if callable(value) and _literal(value) is None:
            raise TypeError("%s:%d: %s uses the Python function %r: kilnd receives values, not code "
                            "(compute the value outside, or write a @T.macro)" % (self.filename, self.line,
                                                                                   self.name, name))
        self.captured[name] = value

    # ------------------------------------------------------------------ what kilnd receives

    def extra_vars(self) -> Dict[str, str]:
        """The captured values as Python literal text, as CompileRequest.extra_vars carries them."""
        out = {}
        for name, value in self.captured.items():
            text = _literal(value)
            if text is None:
                raise TypeError("%s:%d: %s captures %r of type %s; kilnd takes ints, floats, bools, strings, dtypes "
                                "and tuples or lists of those" % (self.filename, self.line, self.name, name,
                                                                  type(value).__name__))
            out[name] = text
        return out

    def text(self) -> Tuple[str, List[_Segment]]:
        """The TVMScript module kilnd parses, and where each of its lines comes from."""
        header = ["from kiln.script import %s as %s" % (ns, alias) for alias, ns in sorted(self._aliases.items())]
        lines, segments = list(header), []
        for part in self._macros + [self]:
            lines.append("")
            body = part.source.rstrip("\n").split("\n")
            segments.append(_Segment(len(lines) + 1, len(body), part.filename, part.line, part._indent))
            lines += body
        return "\n".join(lines) + "\n", segments

    def request_fields(self) -> Dict[str, object]:
        """The module fields of a Compile/Check/Format request."""
        text, _ = self.text()
        return {"source": text, "filename": self.filename, "extra_vars": self.extra_vars()}

    def map_error(self, err: CompileError) -> CompileError:
        """`err` with its diagnostics' positions in the user's file rather than in the sent text."""
        _, segments = self.text()
        mapped = [_map(d, segments, self.filename) for d in err.diagnostics]
        return CompileError(err.message, mapped, err.method)


def _map(d: Diagnostic, segments: List[_Segment], sent_as: str) -> Diagnostic:
    if d.file != sent_as or d.line <= 0:
        return d
    for s in segments:
        if s.first <= d.line < s.first + s.count:
            shift = s.file_line - s.first
            end_line = d.end_line + shift if d.end_line > 0 else 0
            excerpt = d.excerpt
            if excerpt:  # show the user's own line, with the caret moved by the indent
                original = linecache.getline(s.filename, d.line + shift).rstrip("\n")
                first, _, rest = excerpt.partition("\n")
                excerpt = original + ("\n" + " " * s.indent + rest if rest else "") if original else excerpt
            return replace(d, file=s.filename, line=d.line + shift, col=d.col + s.indent, end_line=end_line,
                           end_col=d.end_col + s.indent if d.end_col > 0 else 0, excerpt=excerpt)
    return d


def _cell_is_set(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:  # a closure variable not assigned yet
        return False


def _free_names(source: str) -> List[str]:
    """Names the definition reads but never binds itself, in order of first use."""
    tree = ast.parse(source)
    bound, used = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                used.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
    seen, out = set(), []
    for name in used:
        if name not in bound and name not in seen:
            seen.add(name)
            out.append(name)
    return out


def _literal(value: object) -> Optional[str]:
    """Python literal text for a value kilnd's parser can bind, or None."""
    if isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return repr(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, numpy.dtype):
        return repr(value.name)
    if isinstance(value, type) and issubclass(value, numpy.generic):  # numpy.float16 and the like
        return repr(numpy.dtype(value).name)
    if isinstance(value, (tuple, list)):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, list):
            return "[%s]" % ", ".join(items)
        return "(%s,)" % items[0] if len(items) == 1 else "(%s)" % ", ".join(items)
    return None
