// kiln: the command-line client. `kiln help` lists the commands; each command lives in its own
// library and is one row of kCommands.
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "client/cli/command.h"
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
