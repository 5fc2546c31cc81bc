_WKT = ["any", "api", "descriptor", "duration", "empty", "field_mask", "source_context",
        "struct", "timestamp", "type", "wrappers"]

def _impl(ctx):
    if not ctx.path("/usr/bin/protoc").exists or not ctx.path("/usr/include/google/protobuf").exists:
        fail("need Debian packages protobuf-compiler and libprotobuf-dev")
    for w in _WKT:
        ctx.symlink("/usr/include/google/protobuf/%s.proto" % w, "google/protobuf/%s.proto" % w)
    ctx.file("protoc.sh", "#!/bin/sh\nexec /usr/bin/protoc \"$@\"\n", executable = True)
    build = [
        'package(default_visibility = ["//visibility:public"])',
        'sh_binary(name = "protoc", srcs = ["protoc.sh"])',
        'cc_library(name = "protobuf", linkopts = ["-lprotobuf"])',
        'alias(name = "protobuf_headers", actual = ":protobuf")',
        # blacklisted_protos: do NOT regenerate WKT code (it is already in libprotobuf.so)
        'proto_lang_toolchain(name = "cc_toolchain", command_line = "--cpp_out=$(OUT)", runtime = ":protobuf", blacklisted_protos = [%s])'
            % ", ".join(['":%s_proto"' % w for w in _WKT]),
    ]
    for w in _WKT:
        deps = ""
        if w == "api":
            deps = ', deps = [":source_context_proto", ":type_proto"]'
        if w == "type":
            deps = ', deps = [":any_proto", ":source_context_proto"]'
        build.append('proto_library(name = "%s_proto", srcs = ["google/protobuf/%s.proto"]%s)' % (w, w, deps))
    ctx.file("BUILD", "\n".join(build) + "\n")
    ctx.file("WORKSPACE", 'workspace(name = "com_google_protobuf")\n')

system_protobuf_repository = repository_rule(implementation = _impl, local = True)
