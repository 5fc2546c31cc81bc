"""TVMScript written in Python files, compiled by kilnd: no TVM install needed.

    from kiln.script import ir as I, tirx as T
    import kiln

    N = 1024

    @T.prim_func
    def scale(A: T.Buffer((N,), "float32"), B: T.Buffer((N,), "float32")):
        for i in range(N):
            B[i] = A[i] * T.float32(2)

    with kiln.connect() as sess:
        exe = sess.compile(scale, target="llvm")

A decorator (`T.prim_func`, `T.macro`, `R.function`, `I.ir_module`) does not run the definition: it
keeps its text, where it is in your file, and the values its text uses from outside (module-level
and enclosing-function variables: ints, floats, bools, strings, numpy dtypes, tuples and lists of
those, and `@T.macro` definitions). Session.compile / check / format send the text with those values
as extra vars; kilnd's parser binds them before reading the text, so `N` above is 1024 in the
kernel. Diagnostics point at your file and line. Values are captured when the decorator runs, as in
TVM.

Several functions go into one module with `kiln.script.IRModule({name: function, ...})` (TVM's
`tvm.IRModule`), so host-side Python can generate a family (`{"mm_%d" % t: make_mm(t) for t in
TILES}`). `kiln.script.builder` is TVM's IRBuilder: it builds functions and modules by running
Python (`with T.prim_func(): ...`). Both give objects Session.compile accepts. docs/python-authoring.md
is the tutorial.
"""

from kiln.script import ir, relax, tirx
from kiln.script._capture import Definition, IRModule, Script

__all__ = ["Definition", "IRModule", "Script", "ir", "relax", "tirx"]
