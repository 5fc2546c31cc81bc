"""The checked-in stubs (kiln/_proto) are what gen_stubs.py makes from proto/ today."""

import filecmp
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_stubs  # noqa: E402


def test_stubs_match_protos(tmp_path):
    gen_stubs.generate(str(tmp_path))
    fresh = tmp_path / "kiln" / "_proto"
    checked_in = os.path.join(os.path.dirname(HERE), "kiln", "_proto")
    names = sorted(f for f in os.listdir(fresh) if f.endswith(".py"))
    assert len(names) == 2 * len(gen_stubs.PROTOS)
    stale = [n for n in names if not filecmp.cmp(fresh / n, os.path.join(checked_in, n), shallow=False)]
    assert not stale, "kiln/_proto is stale (%s): run client/python/gen_stubs.py" % ", ".join(stale)
