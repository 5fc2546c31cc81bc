"""Protobuf and gRPC stubs generated from the repository's proto/ (see ../../gen_stubs.py)."""
