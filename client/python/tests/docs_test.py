"""docs/python-authoring.md is a runnable tutorial: its ```python blocks, joined in order into one
file, must run to completion (each block asserts its own results against numpy)."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "..", "docs", "python-authoring.md")


def test_python_authoring_tutorial_runs(tmp_path):
    with open(DOC) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) >= 4, "the tutorial lost its code blocks"
    script = tmp_path / "tutorial.py"  # a real file: the decorators read their source from it
    script.write_text("\n".join(blocks) + "\nsess.close()\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE), KILN_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "def scale(A: T.Buffer((256,), \"float32\")" in run.stdout.replace("'", '"'), run.stdout
    assert "not_defined_anywhere" in run.stdout and "tutorial.py:" in run.stdout, run.stdout
    # The T.compute section prints its expansion, the builder section the functions it generated.
    assert 'T.axis.remap("SSR", [i, j, k])' in run.stdout, run.stdout
    assert "def bias_relu_4(" in run.stdout and "def bias_relu_8(" in run.stdout, run.stdout
