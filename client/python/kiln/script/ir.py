"""TVMScript's IR namespace for Python authoring: `from kiln.script import ir as I`.

`@I.ir_module` captures a class of TVMScript functions as one module for kilnd. See kiln.script."""

from kiln.script._namespace import Placeholder, decorator

ir_module = decorator("ir_module")


def __getattr__(name: str) -> Placeholder:
    return Placeholder("I." + name)
