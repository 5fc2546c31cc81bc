"""sanitized_test: runs a cc_binary as a test, with the binary and everything it links that is built
from source (the whole //compiler closure, say) compiled under ASan+UBSan.

A fuzz target whose code under test spans many packages cannot list their sources the way
ir_deserialize_fuzz_test lists //compiler/ir:ir_srcs; a configuration transition on the binary
rebuilds its whole dependency graph with the sanitizer flags instead, in a separate output
directory, so the ordinary build of those libraries is untouched. System libraries (absl, gtest)
stay as they are: ASan still sees their allocations through its malloc interceptor.
"""

SANITIZE_COPTS = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-O1",
]

def _sanitize_impl(settings, attr):
    return {
        "//command_line_option:copt": settings["//command_line_option:copt"] + SANITIZE_COPTS,
        "//command_line_option:linkopt": settings["//command_line_option:linkopt"] +
                                         ["-fsanitize=address,undefined"],
    }

_sanitize = transition(
    implementation = _sanitize_impl,
    inputs = ["//command_line_option:copt", "//command_line_option:linkopt"],
    outputs = ["//command_line_option:copt", "//command_line_option:linkopt"],
)

def _sanitized_test_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo]
    exe = binary.files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = exe, is_executable = True)
    runfiles = ctx.runfiles(files = [exe]).merge(binary.default_runfiles)
    return [DefaultInfo(executable = out, runfiles = runfiles)]

sanitized_test = rule(
    implementation = _sanitized_test_impl,
    test = True,
    attrs = {
        "binary": attr.label(
            doc = "A cc_binary; its data deps become the test's runfiles.",
            cfg = _sanitize,
            executable = True,
            mandatory = True,
        ),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
