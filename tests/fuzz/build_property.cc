// Property test (issue 14 §1): whatever `kiln check` accepts builds on llvm and c. The programs:
// every TVMScript program of the repository (tests/script, tests/passes/programs, tests/models)
// and of shared/corpus/{tir,relax}, then mutants of them made by the parser fuzzer's token
// mutator (script_mutator.h). Each program is parsed and verified as `kiln check` does
// (ParseScript); when that accepts it and its module has a PrimFunc, the PrimFuncs are built into
// a kernel library (a VM executable for a module with Relax functions) for "llvm" and for "c", as
// `kiln build` does. A crash, a hang, or a build error of an accepted program fails the run and
// prints the program: either the verifier must reject it (compiler/script/verify.h) or the
// backend must build it. Only refusals in kiln's words for programs meant for another target
// (kTargetRefusals) and errors located in the program are allowed.
//
// Each program runs in a forked child with a time limit, so one crash or hang is reported against
// its program. Flags:
//   --seconds=N  stop starting programs after N seconds (default 5; env KILN_BUILD_PROPERTY_SECONDS
//                overrides); the repository's programs, in a seeded random order, alternate with
//                mutants
//   --all        every repository program whatever the time, then mutants for --seconds
//   --seed=N     the random order and the mutations (default: from the clock; printed)
//   --timeout=S  one program's limit (default 60 s)
//   FILE...      build only these files
// A long run: bazel run //tests/fuzz:build_property_test -- --all --seconds=1800
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/driver/kernel_build.h"
#include "compiler/driver/relax_build.h"
#include "compiler/ir/ir.h"
#include "compiler/script/script.h"
#include "tests/fuzz/script_mutator.h"
#include "tests/util/shared_dir.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Program {
  std::string name;  // a file, or "mutant of FILE"
  std::string source;
};

void AddPyFiles(const fs::path& dir, std::vector<Program>* out) {
  std::error_code ec;
  std::vector<fs::path> paths;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->path().extension() == ".py" && !absl::EndsWith(name, ".ref.py")) paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) out->push_back({p.string(), ReadFile(p)});
}

// The repository's directories inside the runfiles (data deps), or from the repository root.
fs::path RepoDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) return fs::path(srcdir) / workspace;
  return ".";
}

// Build failures that are not the property's business, each with why: a program for a target the
// CPU backends are not (GPU kernels, TVM runtime intrinsics they do not implement) is valid, and
// its build says so in kiln's words. Errors located in the program (FILE:LINE:COL) are allowed
// too: the lowering's own verifier rules (T.ret without a return type, a thread tag bound twice)
// that `check` leaves to the build because TVM's parser accepts them, and TIR's SSA rule in
// programs that turn the well-formed check off.
struct Refusal {
  const char* fragment;
  const char* why;
};
constexpr Refusal kTargetRefusals[] = {
    {"runs on the CPU and cannot execute GPU kernels", "a GPU kernel (host_only.cc)"},
    {"backend does not support T.", "an intrinsic of TVM's runtime or of a GPU the CPU backends do not implement"},
    {"unsupported dtype", "a dtype a CPU backend cannot compute in (float8; int1 in C)"},
    {"does not support scalable vectors", "scalable vectors (T.vscale()), for SVE/RVV targets the llvm and c backends do not lower"},
    {"has no legalization", "a Relax operator without a CPU lowering yet (LegalizeOps names it and its line)"},
    {"calls itself and captures variables", "a recursive closure, which LambdaLift does not lift yet (it names the function)"},
    {"LegalizeOps: cannot legalize", "a Relax call LegalizeOps cannot lower yet (it names the call, its line and why)"},
};

// Whether a failed build is a refusal in kiln's words rather than a broken promise of `check`.
bool IsRefusal(const absl::Status& st) {
  if (!absl::IsInvalidArgument(st) && !absl::IsUnimplemented(st)) return false;
  const std::string message(st.message());
  if (absl::StrContains(message, "program.py:") && absl::StrContains(message, ": error: ")) return true;
  for (const Refusal& r : kTargetRefusals) {
    if (absl::StrContains(message, r.fragment)) return true;
  }
  return false;
}

// The property for one program: "" when it holds, else what went wrong; `*built` tells whether
// `check` accepted it with something to build. The module is built as `kiln build` builds it: a
// VM executable when it has a Relax function, else a kernel library.
std::string CheckProgram(const Program& p, const std::string& tmp, bool* built) {
  absl::StatusOr<kiln::ir::ObjectRef> parsed = kiln::script::ParseScript(p.source, "program.py");
  if (!parsed.ok()) return "";  // `check` rejects it: nothing to build
  kiln::ir::IRModule module = kiln::script::AsModule(*parsed);
  const bool relax = kiln::driver::HasRelaxFunction(module);
  bool has_prim = false;
  for (const auto& [gv, f] : module.Functions()) has_prim |= f.as<kiln::ir::PrimFuncNode>() != nullptr;
  if (!relax && !has_prim) return "";
  *built = true;
  std::string reasons;
  for (const char* target : {"llvm", "c"}) {
    absl::Status st;
    if (relax) {
      kiln::driver::BuildOptions options;
      options.work_dir = tmp;
      st = kiln::driver::BuildExecutable(module, target, options).status();
    } else {
      st = kiln::driver::BuildKernelLibrary(module, target, absl::StrCat(tmp, "/lib_", target, ".so"));
    }
    if (st.ok() || IsRefusal(st)) continue;
    absl::StrAppend(&reasons, "check accepts it, build --target ", target, " fails: ", st.ToString(), "\n");
  }
  return reasons;
}

// The exit status of a child whose program was accepted and built (0: nothing to build).
constexpr int kBuiltStatus = 3;

// Runs CheckProgram in a child process with a time limit; a crash or a hang becomes the reason.
std::string RunIsolated(const Program& p, int timeout_s, bool* built) {
  std::string tmpl = (fs::temp_directory_path() / "kiln-build-property-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return "harness: mkdtemp failed";
  int fds[2];
  if (pipe(fds) != 0) return "harness: pipe failed";
  pid_t pid = fork();
  if (pid < 0) return "harness: fork failed";
  if (pid == 0) {
    close(fds[0]);
    bool child_built = false;
    std::string reason = CheckProgram(p, tmpl, &child_built);
    for (size_t off = 0; off < reason.size();) {
      ssize_t n = write(fds[1], reason.data() + off, reason.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    _exit(child_built ? kBuiltStatus : 0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_s);
  bool timed_out = false;
  for (;;) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int r = poll(&pfd, 1, left);
    if (r <= 0) continue;
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  if (timed_out) return absl::StrCat("hang: no result after ", timeout_s, " s");
  if (WIFSIGNALED(status)) return absl::StrCat("crash: signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
  if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != kBuiltStatus)) {
    return "crash: abnormal exit";
  }
  *built = WEXITSTATUS(status) == kBuiltStatus;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  bool all = false;
  int timeout_s = 60;
  uint64_t seed = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  std::vector<Program> programs;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seconds=", 10) == 0) {
      seconds = std::atof(argv[i] + 10);
    } else if (std::strcmp(argv[i], "--all") == 0) {
      all = true;
    } else if (std::strncmp(argv[i], "--seed=", 7) == 0) {
      seed = std::strtoull(argv[i] + 7, nullptr, 10);
    } else if (std::strncmp(argv[i], "--timeout=", 10) == 0) {
      timeout_s = std::atoi(argv[i] + 10);
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr, "build_property: unknown flag %s\n", argv[i]);
      return 2;
    } else {
      programs.push_back({argv[i], ReadFile(argv[i])});
    }
  }
  if (const char* env = std::getenv("KILN_BUILD_PROPERTY_SECONDS")) seconds = std::atof(env);
  const bool only_files = !programs.empty();
  if (!only_files) {
    absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
    if (!shared.ok()) {
      std::fprintf(stderr, "build_property: %s\n", std::string(shared.status().message()).c_str());
      return 1;
    }
    for (const char* area : {"tests/script", "tests/passes/programs", "tests/models"}) AddPyFiles(RepoDir() / area, &programs);
    for (const char* area : {"tir", "relax"}) AddPyFiles(fs::path(*shared) / "corpus" / area, &programs);
  }
  std::printf("build_property: %zu programs, seed %llu\n", programs.size(), static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::string> files;
  for (const Program& p : programs) files.push_back(p.source);
  const kiln::fuzz::MutationCorpus corpus(files);
  if (!only_files) std::shuffle(programs.begin(), programs.end(), rng);

  Clock::time_point start = Clock::now();
  auto time_left = [&] { return std::chrono::duration<double>(Clock::now() - start).count() < seconds; };
  int failures = 0, accepted = 0;
  size_t repo_checked = 0, mutants = 0;
  auto check = [&](const Program& p) {
    bool built = false;
    std::string reason = RunIsolated(p, timeout_s, &built);
    if (built) ++accepted;
    if (reason.empty()) return;
    ++failures;
    std::printf("FAIL %s: %s--- program:\n%s\n---\n", p.name.c_str(), reason.c_str(), p.source.c_str());
    std::fflush(stdout);
  };
  auto mutate = [&] {
    const Program& from = programs[rng() % programs.size()];
    std::string mutant = from.source;
    for (int rounds = 1 + static_cast<int>(rng() % 3); rounds > 0; --rounds) {
      mutant = kiln::fuzz::TokenMutate(corpus, mutant, rng);
    }
    ++mutants;
    check({"mutant of " + from.name, mutant});
  };
  if (only_files || all) {
    // Every program, then (unless only files were given) mutants for --seconds.
    for (const Program& p : programs) {
      check(p);
      ++repo_checked;
    }
    start = Clock::now();
    while (!only_files && time_left()) mutate();
  } else {
    // Bounded: repository programs (in the seeded order) and mutants alternate until the time is up,
    // so that even a short run tries both.
    while (time_left()) {
      if (repo_checked < programs.size()) check(programs[repo_checked++]);
      mutate();
    }
  }
  std::printf(
      "build_property: %zu of %zu repository programs and %zu mutants checked in %.1f s; %d accepted by check and "
      "built (or refused in kiln's words) on llvm and c; %d failures\n",
      repo_checked, programs.size(), mutants, std::chrono::duration<double>(Clock::now() - start).count(), accepted,
      failures);
  return failures == 0 ? 0 : 1;
}
