// Fuzz target: the TVMScript front door (ParseScript with verification) and, for what it accepts,
// the printer and the re-parse of its output. Whatever the input -- random bytes, token soup, or a
// corpus program with tokens deleted, duplicated, swapped or spliced in from another file -- the
// parser must return an IR or a located error, never crash, hang or leak; and an accepted program
// must print to text that parses back to a structurally equal IR whose printing is a fixed point.
//
// Seeds: every .py file of shared/corpus/{tir,relax,invalid} and tests/script (all areas). The
// token-level mutator (LLVMFuzzerCustomMutator) is script_mutator.h's.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"
#include "tests/fuzz/fuzz_driver.h"
#include "tests/fuzz/script_mutator.h"
#include "tests/util/shared_dir.h"

namespace {

namespace fs = std::filesystem;
using kiln::ir::ObjectRef;

constexpr char kFileName[] = "fuzz.py";

[[noreturn]] void Die(const std::string& what, absl::string_view source, const std::string& detail) {
  std::fprintf(stderr, "script_parse_fuzz: %s\n--- input:\n%.*s\n--- detail:\n%s\n", what.c_str(),
               static_cast<int>(source.size()), source.data(), detail.c_str());
  std::abort();
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void AddPyFiles(const fs::path& dir, std::vector<std::string>* out) {
  std::error_code ec;
  std::vector<fs::path> paths;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".py") paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());  // a fixed seed order keeps --seed runs reproducible
  for (const fs::path& p : paths) out->push_back(ReadFile(p));
}

// tests/script inside the runfiles (a data dep), or from the repository root under `bazel run`.
fs::path ScriptTestsDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) return fs::path(srcdir) / workspace / "tests/script";
  return "tests/script";
}

const kiln::fuzz::MutationCorpus& GetCorpus() {
  static const kiln::fuzz::MutationCorpus* corpus = [] {
    std::vector<std::string> files;
    absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
    if (!shared.ok()) {
      std::fprintf(stderr, "script_parse_fuzz: %s\n", std::string(shared.status().message()).c_str());
      std::exit(1);
    }
    for (const char* area : {"tir", "relax", "invalid"}) AddPyFiles(fs::path(*shared) / "corpus" / area, &files);
    size_t shared_files = files.size();
    AddPyFiles(ScriptTestsDir(), &files);
    size_t own_files = files.size() - shared_files;
    if (shared_files == 0 || own_files == 0) {
      std::fprintf(stderr, "script_parse_fuzz: corpus not found (%zu shared files, %zu in tests/script)\n",
                   shared_files, own_files);
      std::exit(1);
    }
    std::printf("seeds: %zu shared corpus files, %zu tests/script files\n", shared_files, own_files);
    return new kiln::fuzz::MutationCorpus(std::move(files));
  }();
  return *corpus;
}

// Round-trip failures that are known gaps, each with why it is tolerated: a failure whose reason
// contains a fragment listed here is counted and reported at exit; any other fails the run. Keep it
// empty unless a gap is filed and cannot be fixed at once.
struct KnownGap {
  const char* fragment;
  const char* why;
};
constexpr std::initializer_list<KnownGap> kKnownRoundTripGaps = {};

// Accepted inputs, and the round-trip failures tolerated by kKnownRoundTripGaps, grouped by reason
// with the shortest input for each; printed when the process exits.
class RoundTripStats {
 public:
  ~RoundTripStats() {
    std::printf("script_parse_fuzz: %ld inputs accepted, %ld of them did not round-trip (%zu kinds)\n", accepted_,
                failed_, by_reason_.size());
    int shown = 0;
    for (const auto& [reason, entry] : by_reason_) {
      if (++shown > 12) break;
      std::printf("  %ld x %s\n    shortest input (%zu bytes): %s\n", entry.count, reason.c_str(),
                  entry.example.size(), OneLine(entry.example).c_str());
    }
  }
  void Accepted() { ++accepted_; }
  void Failed(const std::string& why, absl::string_view source) {
    ++failed_;
    // Line:column and sizes differ between inputs failing for the same reason.
    std::string key;
    for (char c : why.substr(0, why.find('\n'))) {
      if (!std::isdigit(static_cast<unsigned char>(c))) key += c;
      else if (key.empty() || key.back() != '#') key += '#';
    }
    Entry& e = by_reason_[key];
    ++e.count;
    if (e.example.empty() || source.size() < e.example.size()) e.example = std::string(source);
  }

 private:
  static std::string OneLine(std::string s) {
    for (char& c : s) c = c == '\n' ? '|' : c;
    return s.size() > 400 ? s.substr(0, 400) + "..." : s;
  }
  struct Entry {
    long count = 0;
    std::string example;
  };
  long accepted_ = 0, failed_ = 0;
  std::map<std::string, Entry> by_reason_;
};

RoundTripStats& Stats() {
  static RoundTripStats stats;  // the libFuzzer entry point has no other place to keep it
  return stats;
}

// An accepted program must round-trip: a failure is fatal unless it is a known gap.
void RoundTripFailed(const std::string& why, absl::string_view source, const std::string& detail) {
  for (const KnownGap& gap : kKnownRoundTripGaps) {
    if (absl::StrContains(why, gap.fragment)) {
      Stats().Failed(why, source);
      return;
    }
  }
  Die(why, source, detail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace script = kiln::script;
  absl::string_view source(reinterpret_cast<const char*>(data), size);
  script::ParseInfo info;
  absl::StatusOr<ObjectRef> first = script::ParseScript(source, kFileName, nullptr, script::ParseOptions(), &info);
  if (!first.ok()) {
    // A rejection must point at the input ("fuzz.py:LINE:COL: error: ..."), whatever the input.
    const std::string message(first.status().message());
    if (!absl::StartsWith(message, absl::StrCat(kFileName, ":")) || message.find(": error: ") == std::string::npos) {
      Die("rejected without a located error", source, message);
    }
    return 0;
  }
  Stats().Accepted();
  // Print as `kiln fmt` does: a lone function under its own name where that is a `def` name.
  script::printer::PrinterOptions po = script::PrintOptionsFor(*first);
  std::string text = script::printer::Print(*first, po);
  // The printer may add parentheses, so text accepted near the nesting limit can read deeper.
  script::ParseOptions slack;
  slack.max_depth += 8;
  // TVM prints no check_well_formed=False: the printed text is read back as the source was.
  if (info.well_formed_check_off) slack.check_well_formed = false;
  absl::StatusOr<ObjectRef> second = script::ParseScript(text, "printed.py", nullptr, slack);
  if (!second.ok()) {
    const std::string message(second.status().message());
    size_t at = message.find(": error: ");
    RoundTripFailed("the printed text does not parse: " + (at == std::string::npos ? message : message.substr(at + 9)),
                    source, text + "\n" + message);
    return 0;
  }
  std::string path;
  // As script::CheckRoundTrip compares: free variables pair one to one (a buffer no statement
  // declares is a new object on each parse).
  if (!kiln::ir::StructuralEqual(*first, *second, /*map_free_vars=*/true, &path)) {
    RoundTripFailed("the re-parsed IR differs at " + path, source, text);
    return 0;
  }
  std::string text2 = script::printer::Print(*second, po);
  if (text2 != text) RoundTripFailed("printing is not a fixed point", source, text + "\n--- printed again:\n" + text2);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937_64 rng(seed);
  std::string out = kiln::fuzz::TokenMutate(GetCorpus(), absl::string_view(reinterpret_cast<const char*>(data), size), rng);
  size_t n = std::min(out.size(), max_size);
  std::memcpy(data, out.data(), n);
  return n;
}

std::vector<std::string> KilnFuzzSeeds() {
  std::vector<std::string> seeds = GetCorpus().files;
  // Inputs that once crashed (statement-like T.* calls outside a T.prim_func body wrote through an
  // empty builder frame stack): every run replays them.
  seeds.push_back("@I.ir_module\nclass M:\n    T.evaluate(1)\n    T.attr(1, \"k\", 1)\n");
  seeds.push_back("T.decl_buffer((4,))\n@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    T.evaluate(1)\n"
                  "    T.launch_thread(\"threadIdx.x\", 4)\n    return x\n");
  // Shapes near int64's limit once overflowed (UBSan) in folded products: the default layout's
  // strides and multibox_transform_loc's 4 * N.
  seeds.push_back("@T.prim_func\ndef main(B: T.Buffer((8, 9223372036854775807), \"float32\", "
                  "layout=T.TileLayout(T.S[(8, 4) : (1, 8)]))):\n    T.evaluate(0)\n");
  seeds.push_back("@R.function\ndef main(c: R.Tensor((1, 3, 9223372036854775807), dtype=\"float32\"), "
                  "l: R.Tensor((1, 20), dtype=\"float32\"), a: R.Tensor((1, 5, 4), dtype=\"float32\")):\n"
                  "    y = R.vision.multibox_transform_loc(c, l, a)\n    return y\n");
  // A bool literal as a Relax shape dim once read back as int64 only after printing.
  seeds.push_back("@R.function\ndef main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((True,), dtype=\"float32\"):\n"
                  "    y = R.reshape(x, R.shape([4]))\n    return x\n");
  // Scalable vectors (the corpus files under tests/script hold the valid forms): a factor at the
  // int16 limit, a scalable dtype over a vector buffer, and a scalable bool mask stored as a slice.
  seeds.push_back("@T.prim_func\ndef main(A: T.Buffer((64,), \"float32x4\")):\n"
                  "    A[0:T.vscale() * 32767] = T.Broadcast(T.float32x4(0), 32767 * T.vscale())\n"
                  "    A.vstore([0], A.vload([0], \"float32xvscalex4\"))\n");
  seeds.push_back("@T.prim_func\ndef main(M: T.Buffer((64,), \"bool\"), n: T.int32):\n"
                  "    for i in T.vectorized(T.vscale() * 4):\n"
                  "        M[i:i + T.vscale() * 4] = T.get_active_lane_mask(\"uint1xvscalex4\", i, n)\n");
  // Token soups are seeds too, so byte-level mutation also starts from them.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 64; ++i) seeds.push_back(kiln::fuzz::TokenSoup(GetCorpus(), rng));
  return seeds;
}
