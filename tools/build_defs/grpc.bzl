"""protoc / grpc plugin genrules against the system protobuf and gRPC (Debian packages).

The proto root is the workspace root: `proto/x.proto` is included as "proto/x.pb.h" and imported
in Python as `from proto import x_pb2`.
"""

def cc_grpc_library(name, srcs, deps = [], grpc = True, **kwargs):
    outs = []
    for s in srcs:
        base = s[:-len(".proto")]
        outs += [base + ".pb.cc", base + ".pb.h"]
        if grpc:
            outs += [base + ".grpc.pb.cc", base + ".grpc.pb.h"]
    cmd = "/usr/bin/protoc -I. --cpp_out=$(GENDIR)"
    if grpc:
        cmd += " --grpc_out=$(GENDIR) --plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin"
    cmd += " " + " ".join(["$(location %s)" % s for s in srcs])
    native.genrule(name = name + "_gen", srcs = srcs, outs = outs, cmd = cmd, message = "protoc %s" % name)
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + ["//third_party/system:grpc++" if grpc else "//third_party/system:protobuf"],
        **kwargs
    )

def py_grpc_library(name, srcs, **kwargs):
    outs = []
    for s in srcs:
        base = s[:-len(".proto")]
        outs += [base + "_pb2.py", base + "_pb2_grpc.py"]
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = outs,
        cmd = "/usr/bin/protoc -I. --python_out=$(GENDIR) --grpc_out=$(GENDIR) " +
              "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin " +
              " ".join(["$(location %s)" % s for s in srcs]),
    )
    native.py_library(name = name, srcs = outs, **kwargs)
