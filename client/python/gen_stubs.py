#!/usr/bin/env python3
"""Regenerates kiln/_proto/*_pb2.py and *_pb2_grpc.py from the repository's proto/ files.

The stubs are checked in (rather than generated when pip builds the package) so that
`pip install ./client/python` needs only the Python runtime libraries (Debian's python3-grpcio and
python3-protobuf), not protoc and grpc_python_plugin, and so that Bazel tests can import the source
tree as it is. tests/stubs_test.py regenerates them into a temporary directory and fails when the
checked-in copies differ, so they cannot drift from proto/.

The protos are compiled from a copy placed at kiln/_proto/NAME.proto, which makes protoc write
package-relative imports ("from kiln._proto import compile_pb2") instead of top-level ones.

Usage: gen_stubs.py [--out DIR]   (default: this directory, i.e. rewrite the checked-in stubs)
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROTOS = ("compile.proto", "farm.proto", "agent.proto")
PROTOC = "/usr/bin/protoc"
GRPC_PLUGIN = "/usr/bin/grpc_python_plugin"


def generate(out_dir, proto_dir=os.path.join(REPO, "proto")):
    """Writes kiln/_proto/{name}_pb2.py and {name}_pb2_grpc.py for every proto under out_dir."""
    with tempfile.TemporaryDirectory() as src:
        pkg = os.path.join(src, "kiln", "_proto")
        os.makedirs(pkg)
        for name in PROTOS:
            shutil.copyfile(os.path.join(proto_dir, name), os.path.join(pkg, name))
        os.makedirs(os.path.join(out_dir, "kiln", "_proto"), exist_ok=True)
        subprocess.run([PROTOC, "-I", src, "--python_out=" + out_dir, "--grpc_out=" + out_dir,
                        "--plugin=protoc-gen-grpc=" + GRPC_PLUGIN] +
                       [os.path.join("kiln", "_proto", name) for name in PROTOS],
                       cwd=src, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=HERE)
    args = parser.parse_args()
    generate(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
