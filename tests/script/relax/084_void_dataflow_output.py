# A dataflow block's output bound to an empty tuple and used only by R.output keeps its binding
# (the bare-statement sugar for unused void calls does not apply to it).
from tvm.script import relax as R

@R.function
def main() -> R.Tuple:
    with R.dataflow():
        gv: R.Tuple = R.tuple()
        R.output(gv)
    return R.tuple()
