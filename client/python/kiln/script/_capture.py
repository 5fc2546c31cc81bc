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
import re
import textwrap
import types
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

import numpy

from kiln.errors import CompileError, Diagnostic

# The TVMScript namespaces, by the kiln.script module that stands for each.
_NAMESPACES = {"kiln.script.ir": "ir", "kiln.script.tirx": "tirx", "kiln.script.relax": "relax"}


@dataclass(frozen=True)
class Origin:
    """Where one line of the text sent to kilnd comes from: line `line` of `filename`.

    Column c (0-based) of the sent line is column c + indent of the user's line, except that the
    `edits` (sent_start, sent_length, original_length), sorted, replaced text of another length
    (a captured name by its value, a function's name by its module name). With `exact` False the
    line was generated (kiln.script.builder) and a diagnostic points at the user's line as a whole.
    """

    filename: str
    line: int
    indent: int = 0
    edits: Tuple[Tuple[int, int, int], ...] = ()
    exact: bool = True

    def column(self, col: int) -> int:
        """The user's 1-based column for the sent 1-based column `col`."""
        if not self.exact:
            text = linecache.getline(self.filename, self.line)
            return len(text) - len(text.lstrip()) + 1
        c = col - 1
        delta = 0
        for start, sent_len, orig_len in self.edits:
            if c >= start + sent_len:
                delta += orig_len - sent_len
            elif c >= start:
                c = start  # inside a replacement: its start
        return c + delta + self.indent + 1


class Script:
    """TVMScript for kilnd that came from Python: a decorated definition (Definition), a module
    composed of several (IRModule), or what kiln.script.builder built. Session.compile / check /
    format take it as they take source text, and map its diagnostics back to the user's lines.

    Subclasses give text(): the module text and the Origin of each of its lines (None for lines
    kiln added), and extra_vars().
    """

    kind = ""
    name = ""
    filename = "<unknown>"

    def text(self) -> Tuple[str, List[Optional[Origin]]]:
        raise NotImplementedError

    def extra_vars(self) -> Dict[str, str]:
        return {}

    def request_fields(self) -> Dict[str, object]:
        """The module fields of a Compile/Check/Format request."""
        text, _ = self.text()
        return {"source": text, "filename": self.filename, "extra_vars": self.extra_vars()}

    def map_error(self, err: CompileError) -> CompileError:
        """`err` with its diagnostics' positions in the user's file rather than in the sent text."""
        _, origins = self.text()
        mapped = [_map(d, origins, self.filename) for d in err.diagnostics]
        return CompileError(err.message, mapped, err.method)

    def __call__(self, *args, **kwargs):
        raise TypeError("%s %r is TVMScript for kilnd, not Python: compile it with Session.compile()" %
                        (self.kind, self.name))


class Definition(Script):
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
        self._macros: List["Definition"] = []
        self._capture(obj, frame)

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
            if not isinstance(value, Definition) or value.kind != "macro":
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
        """The captured values (the macros' too) as Python literal text, as CompileRequest.extra_vars
        carries them."""
        out: Dict[str, str] = {}
        for part in self._macros + [self]:
            for name, text in part._literals().items():
                if out.get(name, text) != text:
                    raise TypeError("%s:%d: %s and the macros it uses capture %r with different values (%s, %s)" %
                                    (self.filename, self.line, self.name, name, out[name], text))
                out[name] = text
        return out

    def _literals(self) -> Dict[str, str]:
        out = {}
        for name, value in self.captured.items():
            text = _literal(value)
            if text is None:
                raise TypeError("%s:%d: %s captures %r of type %s; kilnd takes ints, floats, bools, strings, dtypes "
                                "and tuples or lists of those" % (self.filename, self.line, self.name, name,
                                                                  type(value).__name__))
            out[name] = text
        return out

    def header(self) -> List[str]:
        return ["from kiln.script import %s as %s" % (ns, alias) for alias, ns in sorted(self._aliases.items())]

    def lines(self, renames: Optional[Dict[str, str]] = None, rename: Optional[str] = None,
              indent: int = 0) -> Tuple[List[str], List[Optional[Origin]]]:
        """This definition's lines and their origins. renames: captured names spelled otherwise (in a
        module of several definitions, one name may hold a different value in each); rename: the
        function's new name; indent: columns added in front of every line."""
        body = self.source.rstrip("\n").split("\n")
        edits: Dict[int, List[Tuple[int, str, int]]] = {}  # line index -> (column, new text, old length)
        if renames:
            for node in ast.walk(ast.parse(self.source)):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in renames:
                    col = _char_col(body[node.lineno - 1], node.col_offset)
                    edits.setdefault(node.lineno - 1, []).append((col, renames[node.id], len(node.id)))
        if rename is not None:
            k, col = _def_name_position(self.source, body)
            edits.setdefault(k, []).append((col, rename, len(self.name)))
        out, origins = [], []
        for k, text in enumerate(body):
            shift, sent_edits, pieces, last = 0, [], [], 0
            for col, new, old_len in sorted(edits.get(k, [])):
                pieces += [text[last:col], new]
                sent_edits.append((col + shift + indent, len(new), old_len))
                shift += len(new) - old_len
                last = col + old_len
            pieces.append(text[last:])
            out.append(" " * indent + "".join(pieces) if text else "")
            origins.append(Origin(self.filename, self.line + k, self._indent - indent, tuple(sent_edits)))
        return out, origins

    def text(self) -> Tuple[str, List[Optional[Origin]]]:
        """The TVMScript module kilnd parses, and where each of its lines comes from."""
        lines: List[str] = self.header()
        origins: List[Optional[Origin]] = [None] * len(lines)
        for part in self._macros + [self]:
            body, where = part.lines()
            lines += [""] + body
            origins += [None] + where
        return "\n".join(lines) + "\n", origins


def _map(d: Diagnostic, origins: List[Optional[Origin]], sent_as: str) -> Diagnostic:
    if d.file != sent_as or not 0 < d.line <= len(origins) or origins[d.line - 1] is None:
        return d
    o = origins[d.line - 1]
    end = origins[d.end_line - 1] if 0 < d.end_line <= len(origins) else None
    excerpt = d.excerpt
    original = linecache.getline(o.filename, o.line).rstrip("\n")
    if excerpt and original:  # show the user's own line, with the caret moved to the mapped column
        _, _, rest = excerpt.partition("\n")
        marks = rest.strip() or "^"
        excerpt = original + "\n" + " " * (o.column(d.col) - 1) + (marks if o.exact else "^")
    return replace(d, file=o.filename, line=o.line, col=o.column(d.col),
                   end_line=end.line if end is not None else 0,
                   end_col=end.column(d.end_col) if end is not None and d.end_col > 0 and end.exact else 0,
                   excerpt=excerpt)


def _char_col(line: str, byte_col: int) -> int:
    """ast's column (UTF-8 bytes) as a column in characters."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _def_name_position(source: str, body: List[str]) -> Tuple[int, int]:
    """(line index, column) of the defined function's name in its source."""
    node = ast.parse(source).body[0]
    for k in range(node.lineno - 1, len(body)):
        m = re.match(r"(\s*(?:async\s+)?def\s+)%s\b" % re.escape(node.name), body[k])
        if m:
            return k, m.end(1)
    raise ValueError("no def line for %s" % node.name)


class IRModule(Script):
    """One module of several functions, as TVM's `tvm.IRModule({name: func, ...})`: the way to put
    functions generated by host-side Python (a loop over tile sizes, a dict comprehension) into
    one module.

        IRModule({"matmul_%d" % t: make_matmul(t) for t in (4, 8, 16)})

    Each value is a @T.prim_func or @R.function (a Definition) or a function built with
    kiln.script.builder; it is renamed to its key. Their captured values travel as extra vars; where
    the functions capture one name with different values (every function of the family captures
    `tile`), each function's uses are renamed apart, so the diagnostics still point at the user's
    lines. `@T.macro`s the functions use are shared by name.
    """

    kind = "ir_module"

    def __init__(self, functions: Dict[str, Script], name: str = "Module"):
        if not functions:
            raise ValueError("an IRModule needs at least one function")
        self.name = name
        self.functions = dict(functions)
        for key, f in self.functions.items():
            if not isinstance(key, str) or not key.isidentifier():
                raise ValueError("IRModule: function name %r is not an identifier" % (key,))
            if not isinstance(f, Script) or f.kind not in ("prim_func", "function"):
                raise TypeError("IRModule: %r is %r; expected a @T.prim_func, an @R.function or a builder-made "
                                "PrimFunc" % (key, f))
        first = next(iter(self.functions.values()))
        self.filename = first.filename

    def __repr__(self) -> str:
        return "<kiln.script IRModule %s: %s>" % (self.name, ", ".join(self.functions))

    def _plan(self) -> Tuple[List["Definition"], Dict[str, Dict[str, str]], Dict[str, str]]:
        """The macros the functions share, each function's renamed captures, and the extra vars.

        A captured name keeps its spelling unless the functions hold different values under it;
        then each function's occurrences become NAME__FUNCTION (the macros, one text for all, keep
        theirs and must agree among themselves)."""
        macros: List[Definition] = []
        for f in self.functions.values():
            for m in getattr(f, "_macros", []):
                same = [x for x in macros if x.name == m.name]
                if same and same[0] is not m:
                    raise TypeError("IRModule: two different macros are named %r" % m.name)
                if not same:
                    macros.append(m)
        extra: Dict[str, str] = {}
        for m in macros:
            for name, text in m._literals().items():
                if extra.setdefault(name, text) != text:
                    raise TypeError("IRModule: macros capture %r with different values (%s, %s)" %
                                    (name, extra[name], text))
        values: Dict[str, set] = {}
        members = {k: f._literals() if isinstance(f, Definition) else {} for k, f in self.functions.items()}
        for lits in members.values():
            for name, text in lits.items():
                values.setdefault(name, set()).add(text)
        renames: Dict[str, Dict[str, str]] = {}
        for key, lits in members.items():
            renames[key] = {}
            for name, text in lits.items():
                if len(values[name]) > 1 or extra.get(name, text) != text:
                    renames[key][name] = "%s__%s" % (name, key)
                    extra["%s__%s" % (name, key)] = text
                else:
                    extra[name] = text
        return macros, renames, extra

    def extra_vars(self) -> Dict[str, str]:
        return self._plan()[2]

    def text(self) -> Tuple[str, List[Optional[Origin]]]:
        macros, renames, _ = self._plan()
        aliases: Dict[str, str] = {}
        for f in self.functions.values():
            for alias, ns in getattr(f, "_aliases", {}).items():
                if aliases.setdefault(alias, ns) != ns:
                    raise TypeError("IRModule: %r names both kiln.script.%s and .%s in its functions" %
                                    (alias, aliases[alias], ns))
        ir_alias = next((a for a, ns in aliases.items() if ns == "ir"), None)
        if ir_alias is None:
            ir_alias = "I" if "I" not in aliases else "_kiln_ir"
            aliases[ir_alias] = "ir"
        lines = ["from kiln.script import %s as %s" % (ns, alias) for alias, ns in sorted(aliases.items())]
        origins: List[Optional[Origin]] = [None] * len(lines)
        for m in macros:
            body, where = m.lines()
            lines += [""] + body
            origins += [None] + where
        lines += ["", "@%s.ir_module" % ir_alias, "class %s:" % self.name]
        origins += [None] * 3
        for key, f in self.functions.items():
            body, where = f.lines(renames=renames[key], rename=key, indent=4)
            lines += body + [""]
            origins += where + [None]
        return "\n".join(lines) + "\n", origins


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
