// The shared conformance corpus (shared/corpus/{tir,relax,invalid}) and kiln's own TVMScript
// breadth corpus (tests/script/{tir,relax,module,invalid,old_spellings,printed}), run as one test
// per area. Valid files must round-trip: parse -> print -> parse gives a structurally equal IR, and
// printing that IR again gives the same text (fixed point); the parsed IR also survives kiln's
// binary and JSON serializations structurally equal (what kilnd and `kiln ir` exchange). Invalid
// files start with `# expect-error: LINE:COL: substring` and must fail to parse (INVALID_ARGUMENT)
// at exactly that position with a diagnostic containing the substring (case-insensitive), as in
// shared/corpus/invalid. Old spellings (old_spellings/NNN.py, `# expect-warning: LINE:COL:
// substring`) must be accepted with that warning and give an IR structurally equal to their v0.26
// twin, old_spellings/v026/NNN.py. Files of printed/ must also be the printer's exact output for
// themselves (one fixture per printer rule).
//
// Each file runs in a forked child with a time limit, so a crash or a hang in the parser or the
// printer is reported against that file instead of hiding the results of all the others. Each test
// prints a summary line ("N/M round-trip") and one line per failing file with its reason.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/serialize.h"
#include "compiler/ir/structural.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"
#include "tests/util/shared_dir.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

constexpr int kPerFileTimeoutMs = 20000;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The corpus directory inside the test's runfiles (the files are `data` of this test).
std::string CorpusDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return absl::StrCat(srcdir, "/", workspace, "/tests/script");
  }
  return "tests/script";  // `bazel run` or a plain binary started from the repo root
}

std::vector<std::string> ListPy(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".py" && !absl::EndsWith(name, ".ref.py")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string OneLine(std::string s, size_t max_len = 400) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > max_len) s = s.substr(0, max_len) + "...";
  return s;
}

// Round trip of one valid file; returns "" on success, else the reason.
// The IR of `source` through the binary and the JSON serialization and back: "" when both give a
// structurally equal IR, else what went wrong.
std::string CheckSerializes(const std::string& source, const std::string& path) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, path);
  if (!parsed.ok()) return OneLine(std::string(parsed.status().message()));
  absl::StatusOr<std::string> bin = ir::Serialize(*parsed);
  absl::StatusOr<std::string> json = ir::SerializeToJson(*parsed);
  if (!bin.ok() || !json.ok()) return OneLine(std::string((bin.ok() ? json.status() : bin.status()).message()));
  for (const auto& [what, back] : {std::make_pair("binary", ir::Deserialize(*bin)),
                                   std::make_pair("JSON", ir::DeserializeFromJson(*json))}) {
    if (!back.ok()) return absl::StrCat(what, " serialization does not read back: ", back.status().message());
    std::string at;
    // Free variables (a module that uses one without defining it) read back as new objects.
    if (!ir::StructuralEqual(*parsed, *back, /*map_free_vars=*/true, &at)) {
      return absl::StrCat(what, " serialization reads back a different IR, at ", at);
    }
  }
  return "";
}

std::string CheckRoundTrip(const std::string& path) {
  const std::string source = ReadFile(path);
  std::string printed;
  absl::Status st = script::CheckRoundTrip(source, path, &printed);
  if (!st.ok()) return OneLine(std::string(st.message())) + (printed.empty() ? "" : "\n----- printed -----\n" + printed);
  return CheckSerializes(source, path);
}

// A file of printed/: it round-trips and is exactly what the printer prints for it (the printer's
// rules, one fixture each).
std::string CheckPrinted(const std::string& path) {
  const std::string source = ReadFile(path);
  std::string printed;
  absl::Status st = script::CheckRoundTrip(source, path, &printed);
  if (!st.ok()) return OneLine(std::string(st.message())) + (printed.empty() ? "" : "\n----- printed -----\n" + printed);
  if (printed == source) return CheckSerializes(source, path);
  size_t at = std::mismatch(printed.begin(), printed.end(), source.begin(), source.end()).first - printed.begin();
  size_t line = static_cast<size_t>(std::count(printed.begin(), printed.begin() + at, '\n')) + 1;
  return absl::StrCat("prints differently from line ", line, ":\n----- printed -----\n", printed);
}

// An old spelling: accepted, with a warning at LINE:COL naming the v0.26 spelling, and read as the
// same IR as its twin in v026/ spelled as TVM v0.26 prints it (the warning alone would let an old
// spelling be accepted with a different meaning).
std::string CheckWarning(const std::string& path) {
  const std::string source = ReadFile(path);
  static const std::regex kHeader(R"(^# expect-warning: (\d+):(\d+): (.*))");
  std::smatch m;
  std::string first_line = source.substr(0, source.find('\n'));
  if (!std::regex_match(first_line, m, kHeader)) return "bad expect-warning header";
  ir::DiagnosticList diags;
  auto parsed = script::ParseScript(source, path, &diags);
  if (!parsed.ok()) return "rejected: " + OneLine(std::string(parsed.status().message()));
  bool warned = false;
  for (const ir::Diagnostic& d : diags.items()) {
    warned |= d.severity == ir::Severity::kWarning && std::to_string(d.span.line) == m[1].str() &&
              std::to_string(d.span.column) == m[2].str() && d.message.find(m[3].str()) != std::string::npos;
  }
  if (!warned) return "no warning at " + m[1].str() + ":" + m[2].str() + " containing \"" + m[3].str() + "\"";
  const std::filesystem::path twin_path =
      std::filesystem::path(path).parent_path() / "v026" / std::filesystem::path(path).filename();
  if (!std::filesystem::exists(twin_path)) return "no v0.26 twin " + twin_path.string();
  ir::DiagnosticList twin_diags;
  auto twin = script::ParseScript(ReadFile(twin_path.string()), twin_path.string(), &twin_diags);
  if (!twin.ok()) return "the v0.26 twin is rejected: " + OneLine(std::string(twin.status().message()));
  for (const ir::Diagnostic& d : twin_diags.items()) {
    if (d.severity == ir::Severity::kWarning) return "the v0.26 twin warns too: " + d.message;
  }
  std::string where;
  if (!ir::StructuralEqual(*parsed, *twin, false, &where)) return "differs from its v0.26 twin at " + where;
  return "";
}

// One invalid file; returns "" when it fails as its header says, else the reason.
std::string CheckInvalid(const std::string& path) {
  const std::string source = ReadFile(path);
  static const std::regex kHeader(R"(^# expect-error: (\d+):(\d+): (.*))");
  std::smatch m;
  std::string first_line = source.substr(0, source.find('\n'));
  if (!std::regex_match(first_line, m, kHeader)) return "bad expect-error header";
  const std::string want_pos = absl::StrCat(":", m[1].str(), ":", m[2].str(), ":");
  std::string want_sub = m[3].str();
  auto parsed = script::ParseScript(source, path);
  if (parsed.ok()) return "accepted, expected an error at " + m[1].str() + ":" + m[2].str() + " (" + want_sub + ")";
  const std::string message(parsed.status().message());
  // The rendered diagnostic reads "FILE:LINE:COL: error: ..."; take the first position in it.
  static const std::regex kPos(R"(:(\d+):(\d+):)");
  std::smatch pm;
  std::string got_pos = std::regex_search(message, pm, kPos) ? pm[0].str() : "<none>";
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::string reason;
  if (!absl::IsInvalidArgument(parsed.status())) {
    reason = absl::StrCat("status ", absl::StatusCodeToString(parsed.status().code()), ", expected INVALID_ARGUMENT");
  }
  if (got_pos != want_pos) {
    if (!reason.empty()) reason += "; ";
    reason += absl::StrCat("position ", got_pos, " expected ", want_pos);
  }
  if (lower(message).find(lower(want_sub)) == std::string::npos) {
    if (!reason.empty()) reason += "; ";
    reason += "message lacks \"" + want_sub + "\"";
  }
  if (!reason.empty()) reason += ": " + OneLine(message);
  return reason;
}

// Runs `check(path)` in a child process; a crash, a hang or an exception becomes the reason.
std::string RunIsolated(const std::string& path, std::string (*check)(const std::string&)) {
  int fds[2];
  if (pipe(fds) != 0) return "harness: pipe failed";
  pid_t pid = fork();
  if (pid < 0) return "harness: fork failed";
  if (pid == 0) {
    close(fds[0]);
    std::string reason;
    try {
      reason = check(path);
    } catch (const std::exception& e) {
      reason = std::string("exception: ") + e.what();
    }
    size_t off = 0;
    while (off < reason.size()) {
      ssize_t n = write(fds[1], reason.data() + off, reason.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kPerFileTimeoutMs);
  bool timed_out = false;
  for (;;) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) return absl::StrCat("hang: no result after ", kPerFileTimeoutMs / 1000, " s");
  if (WIFSIGNALED(status)) return absl::StrCat("crash: signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "crash: abnormal exit";
  return out;
}

// Files of kiln's own corpus that do not pass yet, one "area/file.py" per line (with a reason after
// it). Listing a file here is an honest record of a gap, not a pass: each run prints them.
std::set<std::string> KnownFailures() {
  std::set<std::string> known;
  std::istringstream in(ReadFile(CorpusDir() + "/known_failures.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    known.insert(line.substr(0, line.find(' ')));
  }
  return known;
}

enum class Mode { kRoundTrip, kInvalid, kWarning, kPrinted };

void RunArea(const std::string& label, const std::string& dir, Mode mode, const std::set<std::string>& known = {}) {
  std::vector<std::string> files = ListPy(dir);
  ASSERT_FALSE(files.empty()) << "no corpus files under " << dir;
  std::vector<std::pair<std::string, std::string>> failures;
  size_t known_failing = 0;
  for (const std::string& path : files) {
    std::string (*check)(const std::string&) = mode == Mode::kRoundTrip ? &CheckRoundTrip
                                               : mode == Mode::kInvalid   ? &CheckInvalid
                                               : mode == Mode::kPrinted   ? &CheckPrinted
                                                                          : &CheckWarning;
    std::string reason = RunIsolated(path, check);
    std::string key = label.substr(label.rfind('/') + 1) + "/" + std::filesystem::path(path).filename().string();
    if (reason.empty()) {
      // A listed gap that now passes: the list must say what really fails.
      if (known.count(key)) failures.emplace_back(key, "listed in known_failures.txt but round-trips now: remove it");
      continue;
    }
    if (known.count(key)) {
      ++known_failing;
      std::cout << "  known gap " << key << ": " << OneLine(reason, 160) << "\n";
      continue;
    }
    failures.emplace_back(key, reason);
  }
  const size_t passed = files.size() - failures.size() - known_failing;
  std::cout << label << ": " << passed << "/" << files.size()
            << (mode == Mode::kInvalid   ? " rejected as expected"
                : mode == Mode::kWarning ? " accepted with the warning, equal to the v0.26 twin"
                : mode == Mode::kPrinted ? " print back byte for byte"
                                         : " round-trip")
            << (known_failing ? absl::StrCat(" (", known_failing, " known gaps)") : "") << "\n";
  for (const auto& [name, reason] : failures) std::cout << "  FAIL " << name << ": " << reason << "\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << files.size() << " files in " << label
                                << " failed (listed above)";
}

std::string Shared() {
  absl::StatusOr<std::string> dir = testing::SharedDir();
  return dir.ok() ? *dir + "/corpus" : "<shared corpus not found: " + std::string(dir.status().message()) + ">";
}

// The shared conformance corpus: every valid program round-trips, every invalid one is rejected
// at its line:col with its message.
TEST(SharedCorpusTest, TirRoundTrip) { RunArea("shared/corpus/tir", Shared() + "/tir", Mode::kRoundTrip); }
TEST(SharedCorpusTest, RelaxRoundTrip) { RunArea("shared/corpus/relax", Shared() + "/relax", Mode::kRoundTrip); }
TEST(SharedCorpusTest, InvalidRejectedAtPosition) { RunArea("shared/corpus/invalid", Shared() + "/invalid", Mode::kInvalid); }

// kiln's own breadth corpus.
TEST(ScriptCorpusTest, TirRoundTrip) { RunArea("tests/script/tir", CorpusDir() + "/tir", Mode::kRoundTrip, KnownFailures()); }
TEST(ScriptCorpusTest, RelaxRoundTrip) { RunArea("tests/script/relax", CorpusDir() + "/relax", Mode::kRoundTrip, KnownFailures()); }
TEST(ScriptCorpusTest, ModuleRoundTrip) { RunArea("tests/script/module", CorpusDir() + "/module", Mode::kRoundTrip, KnownFailures()); }
TEST(ScriptCorpusTest, InvalidRejectedAtPosition) { RunArea("tests/script/invalid", CorpusDir() + "/invalid", Mode::kInvalid); }
TEST(ScriptCorpusTest, PrintedByteForByte) { RunArea("tests/script/printed", CorpusDir() + "/printed", Mode::kPrinted); }
TEST(ScriptCorpusTest, OldSpellingsWarn) { RunArea("tests/script/old_spellings", CorpusDir() + "/old_spellings", Mode::kWarning); }

// The property behind `kiln check` and `kiln roundtrip`: every program of the repo that parses
// (and so passes the checks `kiln check` runs) round-trips, whichever test it was written for.
// Files the parser rejects are skipped here (their own areas say whether that is expected).
std::string CheckAcceptedRoundTrips(const std::string& path) {
  if (!script::ParseScript(ReadFile(path), path).ok()) return "";
  return CheckRoundTrip(path);
}

TEST(RepoProgramsTest, AcceptedProgramsRoundTrip) {
  const std::string root = CorpusDir().substr(0, CorpusDir().size() - std::string("tests/script").size());
  std::vector<std::string> dirs = {CorpusDir() + "/tir",          CorpusDir() + "/relax",
                                   CorpusDir() + "/module",       CorpusDir() + "/invalid",
                                   CorpusDir() + "/old_spellings", CorpusDir() + "/printed",
                                   Shared() + "/tir",             Shared() + "/relax",
                                   Shared() + "/invalid",         root + "tests/models",
                                   root + "tests/passes/programs", root + "examples"};
  const std::set<std::string> known = KnownFailures();
  size_t total = 0;
  std::vector<std::pair<std::string, std::string>> failures;
  for (const std::string& dir : dirs) {
    std::vector<std::string> files = ListPy(dir);
    EXPECT_FALSE(files.empty()) << "no programs under " << dir;
    for (const std::string& path : files) {
      ++total;
      std::string key = std::filesystem::path(dir).filename().string() + "/" + std::filesystem::path(path).filename().string();
      if (known.count(key)) continue;
      std::string reason = RunIsolated(path, &CheckAcceptedRoundTrips);
      if (!reason.empty()) failures.emplace_back(path, reason);
    }
  }
  std::cout << "repo programs: " << total - failures.size() << "/" << total
            << " round-trip or are rejected by the parser\n";
  for (const auto& [name, reason] : failures) std::cout << "  FAIL " << name << ": " << reason << "\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " accepted programs do not round-trip (listed above)";
}

}  // namespace
}  // namespace kiln
