// kiln: the command-line client. `kiln help` lists the commands; each command lives in its own
// library and is one row of kCommands.
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "client/cli/command.h"
#include "client/cli/run_commands.h"
#include "client/cli/script_commands.h"
#include "client/cli/version.h"

namespace kiln::cli {
namespace {

const Command kCommands[] = {
    {"check", "parse and verify TVMScript files",
     "usage: kiln check FILE... [--name NAME]\n\n"
     "Parses each file and runs the TIR verifier and Relax well-formedness checks. Diagnostics go to\n"
     "stderr as FILE:LINE:COL: error: ...; exits 0 when every file is valid, 1 otherwise.\n"
     "  --name NAME   with several top-level definitions, check the one named NAME\n",
     "--name", "", &RunCheck},
    {"fmt", "print TVMScript in canonical form",
     "usage: kiln fmt FILE [-i] [--name NAME]\n\n"
     "Prints FILE as TVM v0.26 prints it. -i rewrites FILE in place.\n",
     "--name", "-i", &RunFmt},
    {"roundtrip", "check parse -> print -> parse round trips",
     "usage: kiln roundtrip FILE... [--summary]\n\n"
     "For each file: parse, print, parse again (must be structurally equal) and print again (must be\n"
     "identical text). Prints `ok FILE` or `FAIL FILE: reason`; --summary adds `N/M round-trip`.\n"
     "Exits 1 if any file fails.\n",
     "--name", "--summary", &RunRoundtrip},
    {"ir", "convert between TVMScript and serialized IR",
     "usage: kiln ir FILE --to json|bin|script [-o OUT]\n\n"
     "FILE is TVMScript (.py), serialized IR (binary) or its JSON view (.json). Writes to OUT\n"
     "(default stdout; --to bin needs -o).\n",
     "--to -o --name", "", &RunIr},
    {"build", "compile a module's PrimFuncs into a kernel library",
     "usage: kiln build FILE [--target llvm|c] [-o OUT] [--name NAME] [--emit-c | --emit-llvm]\n"
     "                  [--print-after PASS|all] [--verify-each]\n\n"
     "Lowers every PrimFunc of FILE (TVMScript or serialized IR) and builds a kernel library (a shared\n"
     "object that runtime::KernelLibrary loads; one kernel ABI entry per exported PrimFunc).\n"
     "  --target T    llvm (default; LLVM options allowed: \"llvm -mcpu=skylake\") or c\n"
     "  -o OUT        the library (default: FILE's stem + .so in the current directory); with\n"
     "                --target c an OUT ending in .c, with llvm one ending in .ll, writes source\n"
     "  --emit-c      write the generated C source instead (to OUT, default stdout)\n"
     "  --emit-llvm   write the optimized LLVM assembly instead (to OUT, default stdout)\n"
     "  --name NAME   with several top-level definitions, build the one named NAME\n"
     "  --print-after PASS|all   print the module as TVMScript to stderr after the lowering pass\n"
     "                PASS (repeatable, or comma-separated), or after every pass; an unknown PASS\n"
     "                lists the passes\n"
     "  --verify-each run the TIR verifier after every pass (a failure names the pass)\n"
     "A summary line goes to stderr. Exits 1 on a compile error, 2 on a usage error.\n",
     "--target -o --name --print-after", "--emit-c --emit-llvm --verify-each", &RunBuild},
    {"run", "run a PrimFunc on .npy inputs",
     "usage: kiln run FILE [--entry NAME] [--target llvm|c|interp] --input A.npy ... [--output-dir D]\n"
     "                [--view K:SHAPE:STRIDES[:OFFSET]] [--threads N] [--name NAME] [--quiet]\n\n"
     "Runs PrimFunc NAME of FILE. The inputs are its parameters in order, one .npy file each: arrays for\n"
     "buffers, 0-d arrays for scalars (--input values first, then any further files after FILE).\n"
     "Buffers are updated in place; with --output-dir every buffer parameter K is written to\n"
     "D/argK.npy afterwards. A returned scalar is printed on stdout.\n"
     "  --entry NAME   the PrimFunc (global_symbol or name); default: the only exported one\n"
     "  --target T     llvm (default: JIT-compiled in process), c (built with the C compiler) or\n"
     "                 interp (the reference interpreter)\n"
     "  --view K:SHAPE:STRIDES[:OFFSET]   pass input K as a strided view of its file's data: SHAPE\n"
     "                 and STRIDES comma-separated, STRIDES and OFFSET in elements, e.g.\n"
     "                 --view 0:16,16:32,1 reads a (16, 16) view with row stride 32 of a (16, 32) file;\n"
     "                 OFFSET reaches the kernel as the DLTensor's byte_offset, which a buffer accepts\n"
     "                 when it declares a matching elem_offset\n"
     "  --threads N    threads for parallel loops (default: one per core)\n"
     "  --quiet        no timing summary on stderr\n"
     "Exits 1 with the message on a compile error or a rejected argument (count, shape, dtype,\n"
     "strides) or a failed assert, 2 on a usage error.\n",
     "--entry --target --input --output-dir --view --threads --name", "--quiet", &RunRun},
    {"version", "print the kiln and LLVM versions", "usage: kiln version\n", "", "", &RunVersion},
};

const Command* Find(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "usage: kiln <command> [args]\n\n"
               "kiln compiles TVMScript (Apache TVM v0.26 dialect) programs.\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-12s %s\n", c.name, c.summary);
  std::fprintf(out, "\n`kiln help <command>` or `kiln <command> --help` shows a command's usage.\n");
}

std::set<std::string> Split(const char* s) {
  std::set<std::string> out;
  for (absl::string_view p : absl::StrSplit(s, ' ', absl::SkipEmpty())) out.insert(std::string(p));
  return out;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "help" || name == "--help" || name == "-h") {
    if (argc >= 3) {
      const Command* c = Find(argv[2]);
      if (c == nullptr) {
        std::fprintf(stderr, "kiln: unknown command '%s'\n", argv[2]);
        return 2;
      }
      std::fputs(c->usage, stdout);
      return 0;
    }
    PrintUsage(stdout);
    return 0;
  }
  const Command* c = Find(name);
  if (c == nullptr) {
    std::fprintf(stderr, "kiln: unknown command '%s'\n\n", name.c_str());
    PrintUsage(stderr);
    return 2;
  }
  std::vector<std::string> rest(argv + 2, argv + argc);
  absl::StatusOr<Args> args = Args::Parse(rest, Split(c->valued), Split(c->flags));
  if (!args.ok()) {
    std::fprintf(stderr, "kiln %s: %s\n\n%s", c->name, std::string(args.status().message()).c_str(), c->usage);
    return 2;
  }
  if (args->help()) {
    std::fputs(c->usage, stdout);
    return 0;
  }
  return c->run(*args);
}

}  // namespace
}  // namespace kiln::cli

int main(int argc, char** argv) { return kiln::cli::Main(argc, argv); }
