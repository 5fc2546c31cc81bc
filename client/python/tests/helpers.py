"""Helpers of the client tests: the shared Relax corpus and its result comparison (the contract of
tests/corpus/run_relax_corpus.py)."""

import os
import sys

import numpy as np

import kiln

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "tests", "corpus"))
from run_corpus import compare, find_shared_dir, list_programs  # noqa: E402,F401


def relax_corpus():
    shared = find_shared_dir()
    assert shared is not None, "shared/corpus not found (set KILN_SHARED_DIR)"
    return os.path.join(shared, "corpus", "relax")


def flatten(value, out):
    """Depth-first leaves of nested tuples/lists, as numpy arrays (run_relax_corpus.py's rule)."""
    if isinstance(value, (tuple, list)) and not isinstance(value, kiln.ShapeTuple):
        for v in value:
            flatten(v, out)
    else:
        out.append(np.asarray(value))
    return out


def assert_matches(got, expected, ref):
    """Flattened results equal expected(inputs) within the ref's RTOL/ATOL (bit-exact when 0)."""
    got = flatten(got if isinstance(got, tuple) else [got], [])
    want = flatten(list(expected), [])
    assert len(got) == len(want), "%d results, expected() gave %d" % (len(got), len(want))
    rtol, atol = ref.get("RTOL", 0), ref.get("ATOL", 0)
    for k, (g, w) in enumerate(zip(got, want)):
        if not (rtol or atol):
            assert g.dtype == w.dtype, "out%d: dtype %s, expected %s" % (k, g.dtype, w.dtype)
        diff = compare(g, w, rtol, atol)
        assert diff is None, "out%d: %s" % (k, diff)
