// TVMScript front end throughput: parse + verify (MB/s and per function), print, and the round
// trip of the whole shared corpus on one core, over every valid program of shared/corpus/{tir,relax}
// and tests/script. Peers measured in the same run over the same bytes: memcpy of the sources, a
// byte scan (FNV-1a), and the Doc reader alone (tokenize + Python-subset AST, no IR), so the figures
// read as "parsing costs N memcpys / M doc reads". Also a synthesized ~100-line s_tir PrimFunc
// (three softmax rounds), whose parse + verify has a 1 ms budget.
//
//   bazel run -c opt //tests/bench:script_bench
//   bazel run -c opt //tests/bench:script_bench -- --benchmark_filter=Prim100
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "compiler/ir/ir.h"
#include "compiler/script/doc/reader.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"
#include "tests/util/shared_dir.h"

namespace kiln::script {
namespace {

namespace fs = std::filesystem;

struct Source {
  std::string path;
  std::string text;
  bool shared;    // from shared/corpus (the round-trip figure is over these)
  int functions;  // top-level PrimFuncs / Relax functions in the parsed result
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountFunctions(const ir::ObjectRef& r) {
  if (const auto* m = r.as<ir::IRModuleNode>()) return static_cast<int>(m->functions.size());
  return 1;
}

void Collect(const fs::path& dir, bool shared, std::vector<Source>* out) {
  std::error_code ec;
  std::vector<fs::path> paths;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->path().extension() == ".py" && !absl::EndsWith(name, ".ref.py")) paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    std::string text = ReadFile(p);
    absl::StatusOr<ir::ObjectRef> r = ParseScript(text, p.string());
    if (!r.ok()) continue;  // invalid/ programs: their cost is the error path, not measured here
    out->push_back({p.string(), std::move(text), shared, CountFunctions(*r)});
  }
}

// Every valid program; read once (the function-local static is never changed after).
const std::vector<Source>& Sources() {
  static const std::vector<Source>* sources = [] {
    auto* s = new std::vector<Source>;
    absl::StatusOr<std::string> shared = testing::SharedDir();
    if (!shared.ok()) {
      std::fprintf(stderr, "%s\n", std::string(shared.status().message()).c_str());
      std::exit(1);
    }
    for (const char* area : {"tir", "relax"}) Collect(fs::path(*shared) / "corpus" / area, true, s);
    // tests/script: a runfile under `bazel run` (the current directory is the runfiles tree).
    const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    Collect(fs::exists("tests/script") || ws == nullptr ? fs::path("tests/script") : fs::path(ws) / "tests/script",
            false, s);
    return s;
  }();
  return *sources;
}

int64_t TotalBytes(bool shared_only = false) {
  int64_t n = 0;
  for (const Source& s : Sources()) n += (!shared_only || s.shared) ? static_cast<int64_t>(s.text.size()) : 0;
  return n;
}

int TotalFunctions() {
  int n = 0;
  for (const Source& s : Sources()) n += s.functions;
  return n;
}

// ~100 lines: three rounds of a four-stage softmax (max, exp, sum, normalize) over sblocks, each
// round reading the previous one's output.
std::string Prim100() {
  std::string s =
      "@T.prim_func(s_tir=True)\n"
      "def main(A: T.Buffer((4, 64), \"float32\"), B: T.Buffer((4, 64), \"float32\")):\n"
      "    # with T.sblock(\"root\"):\n";
  for (int r = 0; r < 3; ++r) {
    absl::StrAppend(&s, "    mx", r, " = T.sblock_alloc_buffer((4,))\n", "    sm", r,
                    " = T.sblock_alloc_buffer((4,))\n", "    ex", r, " = T.sblock_alloc_buffer((4, 64))\n");
    if (r < 2) absl::StrAppend(&s, "    out", r, " = T.sblock_alloc_buffer((4, 64))\n");
  }
  for (int r = 0; r < 3; ++r) {
    std::string in = r == 0 ? "A" : absl::StrCat("out", r - 1), out = r == 2 ? "B" : absl::StrCat("out", r);
    std::string mx = absl::StrCat("mx", r), sm = absl::StrCat("sm", r), ex = absl::StrCat("ex", r);
    absl::StrAppend(&s, "    for i, k in T.grid(4, 64):\n", "        with T.sblock(\"max", r, "\"):\n",
                    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n", "            T.reads(", in, "[vi, vk])\n",
                    "            T.writes(", mx, "[vi])\n", "            with T.init():\n", "                ", mx,
                    "[vi] = T.float32(-3.4028234663852886e38)\n", "            ", mx, "[vi] = T.max(", mx, "[vi], ", in,
                    "[vi, vk])\n");
    absl::StrAppend(&s, "    for i, j in T.grid(4, 64):\n", "        with T.sblock(\"exp", r, "\"):\n",
                    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n", "            T.reads(", in, "[vi, vj], ", mx,
                    "[vi])\n", "            T.writes(", ex, "[vi, vj])\n", "            ", ex, "[vi, vj] = T.exp(", in,
                    "[vi, vj] - ", mx, "[vi])\n");
    absl::StrAppend(&s, "    for i, k in T.grid(4, 64):\n", "        with T.sblock(\"sum", r, "\"):\n",
                    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n", "            T.reads(", ex, "[vi, vk])\n",
                    "            T.writes(", sm, "[vi])\n", "            with T.init():\n", "                ", sm,
                    "[vi] = T.float32(0.0)\n", "            ", sm, "[vi] = ", sm, "[vi] + ", ex, "[vi, vk]\n");
    absl::StrAppend(&s, "    for i, j in T.grid(4, 64):\n", "        with T.sblock(\"norm", r, "\"):\n",
                    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n", "            T.reads(", ex, "[vi, vj], ", sm,
                    "[vi])\n", "            T.writes(", out, "[vi, vj])\n", "            ", out, "[vi, vj] = ", ex,
                    "[vi, vj] / ", sm, "[vi]\n");
  }
  return s;
}

const std::string& Prim100Text() {
  static const std::string* text = [] {
    auto* t = new std::string(Prim100());
    absl::Status st = CheckRoundTrip(*t, "prim100.py");
    if (!st.ok()) {
      std::fprintf(stderr, "the synthesized PrimFunc does not round-trip: %s\n", std::string(st.message()).c_str());
      std::exit(1);
    }
    return t;
  }();
  return *text;
}

void SetCorpusCounters(benchmark::State& state, int64_t bytes_per_iter, int functions_per_iter) {
  state.SetBytesProcessed(state.iterations() * bytes_per_iter);
  state.counters["files"] = static_cast<double>(Sources().size());
  // Per-function latency: the (CPU) time of one pass over the corpus divided by its functions.
  state.counters["per_func"] = benchmark::Counter(static_cast<double>(functions_per_iter),
                                                  benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// ---- Peers over the same bytes.

void BM_PeerMemcpy(benchmark::State& state) {
  std::vector<std::string> copies;
  for (const Source& s : Sources()) copies.emplace_back(s.text.size(), '\0');
  for (auto _ : state) {
    for (size_t i = 0; i < copies.size(); ++i) std::memcpy(&copies[i][0], Sources()[i].text.data(), copies[i].size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes());
}
BENCHMARK(BM_PeerMemcpy);

void BM_PeerFnv1a(benchmark::State& state) {
  for (auto _ : state) {
    uint64_t h = 1469598103934665603ull;
    for (const Source& s : Sources()) {
      for (unsigned char c : s.text) h = (h ^ c) * 1099511628211ull;
    }
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes());
}
BENCHMARK(BM_PeerFnv1a);

void BM_PeerDocRead(benchmark::State& state) {
  for (auto _ : state) {
    for (const Source& s : Sources()) benchmark::DoNotOptimize(doc::Read(s.text, s.path).ok());
  }
  SetCorpusCounters(state, TotalBytes(), TotalFunctions());
}
BENCHMARK(BM_PeerDocRead)->Unit(benchmark::kMicrosecond);

// ---- Ours.

void BM_Parse(benchmark::State& state) {  // without the verifiers: the breakdown of BM_ParseVerify
  ParseOptions o;
  o.verify = false;
  for (auto _ : state) {
    for (const Source& s : Sources()) benchmark::DoNotOptimize(ParseScript(s.text, s.path, nullptr, o).ok());
  }
  SetCorpusCounters(state, TotalBytes(), TotalFunctions());
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMicrosecond);

void BM_ParseVerify(benchmark::State& state) {
  for (auto _ : state) {
    for (const Source& s : Sources()) benchmark::DoNotOptimize(ParseScript(s.text, s.path).ok());
  }
  SetCorpusCounters(state, TotalBytes(), TotalFunctions());
}
BENCHMARK(BM_ParseVerify)->Unit(benchmark::kMicrosecond);

void BM_Print(benchmark::State& state) {
  std::vector<ir::ObjectRef> parsed;
  int64_t printed_bytes = 0;
  for (const Source& s : Sources()) {
    parsed.push_back(*ParseScript(s.text, s.path));
    printed_bytes += static_cast<int64_t>(printer::Print(parsed.back()).size());
  }
  for (auto _ : state) {
    for (const ir::ObjectRef& r : parsed) benchmark::DoNotOptimize(printer::Print(r).size());
  }
  SetCorpusCounters(state, printed_bytes, TotalFunctions());
}
BENCHMARK(BM_Print)->Unit(benchmark::kMicrosecond);

// parse -> print -> parse -> structural equal -> print, for every program of shared/corpus/{tir,relax}.
void BM_RoundTripSharedCorpus(benchmark::State& state) {
  int files = 0;
  for (auto _ : state) {
    files = 0;
    for (const Source& s : Sources()) {
      if (!s.shared) continue;
      ++files;
      if (!CheckRoundTrip(s.text, s.path).ok()) state.SkipWithError(("round trip failed: " + s.path).c_str());
    }
  }
  state.counters["files"] = files;
  state.SetBytesProcessed(state.iterations() * TotalBytes(/*shared_only=*/true));
}
BENCHMARK(BM_RoundTripSharedCorpus)->Unit(benchmark::kMillisecond);

void BM_Prim100ParseVerify(benchmark::State& state) {
  const std::string& text = Prim100Text();
  for (auto _ : state) benchmark::DoNotOptimize(ParseScript(text, "prim100.py").ok());
  state.counters["lines"] = static_cast<double>(std::count(text.begin(), text.end(), '\n'));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_Prim100ParseVerify)->Unit(benchmark::kMicrosecond);

void BM_Prim100Parse(benchmark::State& state) {
  const std::string& text = Prim100Text();
  ParseOptions o;
  o.verify = false;
  for (auto _ : state) benchmark::DoNotOptimize(ParseScript(text, "prim100.py", nullptr, o).ok());
}
BENCHMARK(BM_Prim100Parse)->Unit(benchmark::kMicrosecond);

void BM_Prim100DocRead(benchmark::State& state) {  // peer: the Doc reader alone on the same text
  const std::string& text = Prim100Text();
  for (auto _ : state) benchmark::DoNotOptimize(doc::Read(text, "prim100.py").ok());
}
BENCHMARK(BM_Prim100DocRead)->Unit(benchmark::kMicrosecond);

void BM_Prim100Print(benchmark::State& state) {
  ir::ObjectRef f = *ParseScript(Prim100Text(), "prim100.py");
  for (auto _ : state) benchmark::DoNotOptimize(printer::Print(f).size());
}
BENCHMARK(BM_Prim100Print)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kiln::script

int main(int argc, char** argv) {
  const auto& sources = kiln::script::Sources();
  int shared = 0;
  for (const auto& s : sources) shared += s.shared;
  std::printf("corpus: %zu valid programs (%d from shared/corpus, %zu from tests/script), %lld bytes, %d functions\n",
              sources.size(), shared, sources.size() - shared, static_cast<long long>(kiln::script::TotalBytes()),
              kiln::script::TotalFunctions());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
