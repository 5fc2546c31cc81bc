"""Installs the kiln Python client: `pip install ./client/python` (offline, see README.md).

There is deliberately no pyproject.toml: without one, pip builds with the setuptools already
installed (Debian's python3-setuptools, seen by a --system-site-packages venv) instead of
downloading setuptools into an isolated build environment, so the install works offline.
"""

from setuptools import setup

setup(
    name="kiln",
    version="0.1.0",
    description="Python client of kilnd (the kiln compile service) and kiln-agent (remote Relax VM)",
    python_requires=">=3.9",
    packages=["kiln", "kiln._proto", "kiln.script", "kiln.script.builder"],
    # Debian 12's python3-grpcio, python3-protobuf and python3-numpy; never fetched from an index.
    install_requires=["grpcio>=1.51", "protobuf>=3.21", "numpy>=1.21"],
)
