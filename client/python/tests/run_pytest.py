"""Runs the kiln Python client's pytest suite against real kilnd and kiln-agent binaries.

Usage: run_pytest.py KILND KILN_AGENT [pytest args...]

The binaries are linked into a temporary $KILN_BIN_DIR, which is where kiln.connect() without an
address looks first; the package is imported from this source tree (client/python).
"""

import os
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    bin_dir = tempfile.mkdtemp(prefix="kiln-bin-", dir=os.environ.get("TEST_TMPDIR"))
    for name, path in (("kilnd", argv[1]), ("kiln-agent", argv[2])):
        os.symlink(os.path.abspath(path), os.path.join(bin_dir, name))
    os.environ["KILN_BIN_DIR"] = bin_dir
    sys.path.insert(0, os.path.dirname(HERE))
    # -p no:cacheprovider: Bazel's runfiles are read-only.
    return pytest.main([HERE, "-p", "no:cacheprovider", "-q"] + argv[3:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
