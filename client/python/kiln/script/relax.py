"""TVMScript's Relax namespace for Python authoring: `from kiln.script import relax as R`.

`@R.function` captures the definition for kilnd; every other `R.<name>` is a placeholder that only
lets Python evaluate annotations. See kiln.script."""

from kiln.script._namespace import Placeholder, decorator

function = decorator("function")


def __getattr__(name: str) -> Placeholder:
    return Placeholder("R." + name)
