// kiln: the command-line client. `kiln help` lists the commands; each command lives in its own
// library and is one row of kCommands.
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "client/cli/command.h"
#include "client/cli/exec_commands.h"
#include "client/cli/run_commands.h"
#include "client/cli/script_commands.h"
#include "client/cli/version.h"

namespace kiln::cli {
namespace {

// The options of --remote, shared by build, check and fmt (client/cli/remote_commands.h).
#define REMOTE_VALUED "--remote --token-file --tls-ca --tls-cert --tls-key"
#define REMOTE_OPTIONS \
  "\nRemote (ask a kilnd instead of the local compiler):\n" \
  "  --remote HOST:PORT   the kilnd to ask\n" \
  "  --token-file T       send the bearer token on T's first line\n" \
  "  --tls-ca C           use TLS, verifying the server with the CA certificate C (PEM)\n" \
  "  --tls-cert C --tls-key K   mutual TLS: this client's certificate and key (PEM)\n"

// --define, for every command that reads TVMScript (script::ParseOptions::defines; kilnd's extra_vars
// with --remote).
#define DEFINE_OPTION \
  "  --define NAME=VALUE   (repeatable) bind NAME before FILE is read, as if it began with\n" \
  "                      NAME = VALUE: a number, a string, a bool, a tuple/list of those, or a bare\n" \
  "                      word as a string (--define M=128 --define DT=float16 --define S=\"(4, 8)\")\n"

// The options of `kiln run|bench` on a kiln-agent (client/cli/remote_commands.h).
#define AGENT_VALUED " --agent --agent-token-file --farm --priority " REMOTE_VALUED
#define AGENT_OPTIONS \
  "\nOn a kiln-agent (the output is the same as a local run's):\n" \
  "  --agent HOST:PORT    run on this agent; FILE is built here (or read, for a .kx) and uploaded\n" \
  "  --remote HOST:PORT --farm KEY [--priority P]   compile FILE on that kilnd and run on an agent\n" \
  "                       of KEY leased from its farm (highest priority first, FIFO within one);\n" \
  "                       --remote with --agent compiles on kilnd and runs on that agent\n" \
  "  --agent-token-file T the agent's bearer token (T's first line)\n" \
  "  --token-file T, --tls-ca C, --tls-cert C --tls-key K   as for `kiln build --remote`\n" \
  "An agent that cannot be reached is reported as UNAVAILABLE with its address; a key no agent\n" \
  "registered, as NOT_FOUND with the keys kilnd has.\n"

const Command kCommands[] = {
    {"check", "parse and verify TVMScript files",
     "usage: kiln check FILE... [--name NAME] [--define NAME=VALUE ...]\n"
     "       kiln check FILE... --remote HOST:PORT [--token-file T] [--tls-ca C]\n\n"
     "Parses each file and runs the TIR verifier and Relax well-formedness checks. Diagnostics go to\n"
     "stderr as FILE:LINE:COL: error: ...; exits 0 when every file is valid, 1 otherwise.\n"
     "  --name NAME   with several top-level definitions, check the one named NAME (local only)\n"
     DEFINE_OPTION REMOTE_OPTIONS,
     "--name --define " REMOTE_VALUED, "", &RunCheck},
    {"fmt", "print TVMScript in canonical form",
     "usage: kiln fmt FILE [-i] [--name NAME] [--function F] [--module-alias NAME]\n"
     "                [--hide-inferable-ty] [--define NAME=VALUE ...]\n"
     "       kiln fmt FILE [-i] --remote HOST:PORT [--token-file T] [--tls-ca C]\n\n"
     "Prints FILE as TVM v0.26 prints it. -i rewrites FILE in place.\n"
     "  --module-alias NAME   what Relax functions call their module (TVM's module_alias; default\n"
     "                        cls; empty: the module's own name)\n"
     "  --hide-inferable-ty   omit binding annotations the value's type implies (TVM's show_all_ty=False)\n"
     "  --function F          print only the module's function F, as it prints on its own (TVM's\n"
     "                        mod[\"F\"].script(): the module functions it calls are named bare)\n"
     DEFINE_OPTION REMOTE_OPTIONS,
     "--name --function --module-alias --define " REMOTE_VALUED, "-i --hide-inferable-ty", &RunFmt},
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
    {"build", "compile a module into a VM executable or a kernel library",
     "usage: kiln build FILE [--target llvm|c] [-o OUT] [--exe] [--entry F ...] [--name NAME]\n"
     "                  [--emit-c | --emit-llvm] [--print-after PASS|all] [--verify-each] [--checked]\n"
     "                  [--define NAME=VALUE ...]\n"
     "       kiln build FILE [--target T] [-o OUT.kx] [--entry F ...] --remote HOST:PORT\n"
     "                  [--token-file T] [--tls-ca C [--tls-cert C --tls-key K]]\n\n"
     "FILE is TVMScript or serialized IR. A module with a Relax function becomes a Relax VM executable\n"
     "(.kx: TVM's bytecode layout plus the compiled kernels): the Relax pipeline\n"
     "(compiler/driver/relax_pipeline.cc), the PrimFuncs built into a host library, then VM codegen.\n"
     "A module of PrimFuncs only becomes a kernel library (a shared object that runtime::KernelLibrary\n"
     "loads; one kernel ABI entry per exported PrimFunc), or with --exe an executable whose functions\n"
     "are the kernels.\n"
     "  --target T    llvm (default; LLVM options allowed: \"llvm -mcpu=skylake\") or c, or a GPU target:\n"
     "                opencl, \"cuda -arch=sm_90 [-fast-math]\" (NVRTC), \"nvptx -mcpu=sm_90\" (LLVM) or\n"
     "                \"rocm -mcpu=gfx90a\" (compile only), which always build an executable; with an OUT\n"
     "                ending in .ptx, .hsaco or .cl they write the GPU kernels' device code instead.\n"
     "                With \"cuda -arch=sm_90a\" (the arch-specific set of compute capability 9.0, which\n"
     "                runs on 9.0 devices only) float16 GEMMs use wgmma tensor cores; from sm_80 on,\n"
     "                cuda and nvptx use mma.sync\n"
     "  -o OUT        the output (default: FILE's stem + .kx for an executable, + .so for a library);\n"
     "                for a library, with --target c an OUT ending in .c, with llvm one ending in .ll,\n"
     "                writes source; with llvm an OUT ending in .o writes the kernels' object file\n"
     "                (no linking, so any -mtriple works)\n"
     "  --exe         write an executable for a module of PrimFuncs only\n"
     "  --entry F     (repeatable) the Relax functions the executable exports; the others, and the\n"
     "                kernels only they use, are dropped (default: every public function)\n"
     "  --emit-c      write the kernels' generated C source instead (to OUT, default stdout)\n"
     "  --emit-llvm   write the kernels' optimized LLVM assembly instead (to OUT, default stdout)\n"
     "  --name NAME   with several top-level definitions, build the one named NAME\n"
     "  --print-after PASS|all   print the module as TVMScript to stderr after the lowering pass\n"
     "                PASS (repeatable, or comma-separated), or after every pass: the Relax pipeline's\n"
     "                passes (executables) and the TIR lowering's (every kernel); an unknown PASS\n"
     "                lists the passes\n"
     "  --verify-each run the verifiers after every pass (Relax well-formedness and the TIR verifier;\n"
     "                a failure names the pass)\n"
     "  --checked     checked mode: every buffer access is bounds-checked and integer division by zero,\n"
     "                INT_MIN / -1, shifts by the bit width or more and recursion deeper than 64 calls\n"
     "                fail the call with the interpreter's message and the source location (slower)\n"
     "A summary line goes to stderr. Exits 1 on a compile error, 2 on a usage error.\n\n"
     "With --remote the kilnd at HOST:PORT compiles FILE (sent as it is) and the executable it returns\n"
     "is written to OUT: the same bytes a local build writes. The output is always an executable\n"
     "(.kx); the summary line adds the cache tier that answered (cache: memory|disk|redis|miss).\n"
     "Compile errors come back as FILE:LINE:COL diagnostics; --checked builds in checked mode there\n"
     "too. --name, --emit-c, --emit-llvm, --print-after and --verify-each are local only.\n"
     DEFINE_OPTION REMOTE_OPTIONS,
     "--target -o --name --entry --print-after --define " REMOTE_VALUED, "--exe --emit-c --emit-llvm --verify-each --checked", &RunBuild},
    {"inspect", "print a VM executable as text, Python or statistics",
     "usage: kiln inspect FILE [--text | --python | --stats] [--target llvm|c]\n\n"
     "FILE is an executable written by `kiln build` (.kx), or a module, built first for --target.\n"
     "  --text     the bytecode as TVM's as_text() prints it (default)\n"
     "  --python   the ExecBuilder program TVM's as_python() prints\n"
     "  --stats    TVM's \"Relax VM executable statistics\" plus the library section\n"
     "Exits 1 with one line naming the file when it cannot be read, is corrupted or fails to build,\n"
     "2 on a usage error.\n",
     "--target", "--text --python --stats", &RunInspect},
    {"run", "run a Relax function or a PrimFunc on .npy inputs",
     "usage: kiln run FILE|MODEL.kx [--entry NAME] [--target llvm|c|interp|opencl|vulkan|cuda|nvptx] --input A.npy ...\n"
     "                [--output-dir D] [--stateful] [--view K:SHAPE:STRIDES[:OFFSET]] [--threads N]\n"
     "                [--name NAME] [--define NAME=VALUE ...] [--quiet] [--checked]\n\n"
     "Relax: when FILE has a Relax function (or is an executable from `kiln build`), it is built into\n"
     "a VM executable (or loaded) and function NAME (default main) runs on the VM. The inputs are its\n"
     "parameters in order, one .npy file each (a tuple parameter takes one file per field, an R.Prim a\n"
     "0-d array, an R.Shape a 1-D int64 array). The result is flattened depth-first (tuples in order)\n"
     "and written to D/out0.npy, D/out1.npy, ... (a scalar as a 0-d array, a shape as int64), or\n"
     "printed when there is no --output-dir.\n"
     "  --stateful     run through the stateful API (set_input, invoke_stateful, get_outputs), as a\n"
     "                 device farm does\n\n"
     "PrimFunc: runs PrimFunc NAME of FILE. The inputs are its parameters in order: arrays for\n"
     "buffers, 0-d arrays for scalars (--input values first, then any further files after FILE).\n"
     "Buffers are updated in place; with --output-dir every buffer parameter K is written to\n"
     "D/argK.npy afterwards. A returned scalar is printed on stdout.\n"
     "  --entry NAME   the function (global_symbol or name); default: main for Relax, else the only\n"
     "                 exported PrimFunc\n"
     "  --target T     llvm (default: for PrimFuncs JIT-compiled in process), c (built with the C\n"
     "                 compiler), interp (the reference interpreter; PrimFuncs only), opencl\n"
     "                 (PrimFuncs with blockIdx/threadIdx bindings, on the first OpenCL device),\n"
     "                 vulkan (the same, as SPIR-V on the first Vulkan device), or\n"
     "                 \"cuda -arch=sm_XY\" / \"nvptx -mcpu=sm_XY\" (the same, on CUDA device 0)\n"
     "  --view K:SHAPE:STRIDES[:OFFSET]   pass input K as a strided view of its file's data: SHAPE\n"
     "                 and STRIDES comma-separated, STRIDES and OFFSET in elements, e.g.\n"
     "                 --view 0:16,16:32,1 reads a (16, 16) view with row stride 32 of a (16, 32) file;\n"
     "                 OFFSET reaches the kernel as the DLTensor's byte_offset, which a buffer accepts\n"
     "                 when it declares a matching elem_offset (PrimFuncs only)\n"
     "  --threads N    threads for parallel loops (default: one per core)\n"
     "  --quiet        no timing summary on stderr\n"
     "  --checked      checked mode (llvm, c): bounds, division, shift and recursion checks, as\n"
     "                 `kiln build --checked`; the first failure ends the run with its message\n"
     "Exits 1 with the message on a compile error, a corrupted executable, a rejected argument (count,\n"
     "shape, dtype, strides) or a failed assert, 2 on a usage error.\n" DEFINE_OPTION AGENT_OPTIONS,
     "--entry --target --input --output-dir --view --threads --name --define" AGENT_VALUED, "--quiet --stateful --checked", &RunRun},
    {"bench", "time a Relax function with TVM's time_evaluator",
     "usage: kiln bench FILE|MODEL.kx [--entry NAME] [--target llvm|c] [--input A.npy ...]\n"
     "                  [--number N] [--repeat R] [--min-repeat-ms M] [--cooldown-interval-ms C]\n"
     "                  [--repeats-to-cooldown K] [--limit-zero-time-iterations L]\n"
     "                  [--cache-flush-bytes B] [--threads N] [--define NAME=VALUE ...] [--json]\n\n"
     "Builds (or loads) the executable, sets the inputs once (set_input) and times invoke_stateful of\n"
     "NAME (default main) as TVM's time_evaluator does: one warm-up call, then R repeats of N calls;\n"
     "a repeat shorter than M ms raises N. Without --input, inputs are random values of the declared\n"
     "static shapes (needs the source file). Defaults are TVM's: number 10, repeat 1, min-repeat-ms 0,\n"
     "cooldown 0, repeats-to-cooldown 1, limit-zero-time-iterations 100, cache-flush-bytes 0.\n"
     "  --json   one JSON object: mean_s, median_s, std_s, min_s, max_s, results_s (seconds per call\n"
     "           for each repeat), number, repeat, build_s\n" DEFINE_OPTION AGENT_OPTIONS,
     "--entry --target --input --number --repeat --min-repeat-ms --cooldown-interval-ms "
     "--repeats-to-cooldown --limit-zero-time-iterations --cache-flush-bytes --threads --name --define" AGENT_VALUED,
     "--json", &RunBench},
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
  std::fprintf(out,
               "\nbuild, check and fmt also run on a kilnd: --remote HOST:PORT [--token-file T] [--tls-ca C\n"
               "[--tls-cert C --tls-key K]] (see `kiln help build`); run and bench on a kiln-agent: --agent\n"
               "HOST:PORT, or --remote HOST:PORT --farm KEY (see `kiln help run`).\n"
               "\n`kiln help <command>` or `kiln <command> --help` shows a command's usage.\n");
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
  if (absl::Status st = ParseDefines(args->GetAll("--define")).status(); !st.ok()) {
    std::fprintf(stderr, "kiln %s: %s\n", c->name, std::string(st.message()).c_str());
    return 2;
  }
  return c->run(*args);
}

}  // namespace
}  // namespace kiln::cli

int main(int argc, char** argv) { return kiln::cli::Main(argc, argv); }
