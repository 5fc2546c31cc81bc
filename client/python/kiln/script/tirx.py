"""TVMScript's TIR namespace for Python authoring: `from kiln.script import tirx as T`.

`@T.prim_func` and `@T.macro` capture the definition for kilnd; every other `T.<name>` is a
placeholder that only lets Python evaluate annotations. See kiln.script."""

from kiln.script._namespace import Placeholder, decorator

prim_func = decorator("prim_func")
macro = decorator("macro")


def __getattr__(name: str) -> Placeholder:
    return Placeholder("T." + name)
