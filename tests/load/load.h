// kiln-load: drives a kilnd with C concurrent clients for a bounded time (and optionally a bounded
// number of requests) with a mix of request kinds, checks every answer, and reports throughput,
// latency percentiles per kind and errors by status code. A request is "lost" when it got neither a
// correct answer nor a correct error; the report ends with `lost=N`.
//
// The kinds:
//   hit      a fixed small Relax module, compiled once before the run: every answer must carry the
//            executable of that first compile (same digest, bytes that hash to it).
//   miss     the same module with a constant varied by a per-run nonce and a counter, so that no
//            cache tier (not even a disk cache from an earlier run) holds it.
//   invalid  a source with a syntax or a type error: INVALID_ARGUMENT with a located diagnostic.
//   large    a module whose executable exceeds 1 MiB (a large constant), so that it comes back
//            through FetchArtifact; compiled once before the run, like hit.
// RESOURCE_EXHAUSTED with retry info (a full queue) is a correct error for any kind.
#ifndef KILN_TESTS_LOAD_LOAD_H_
#define KILN_TESTS_LOAD_LOAD_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kiln::load {

enum class Kind { kHit = 0, kMiss = 1, kInvalid = 2, kLarge = 3 };
inline constexpr int kNumKinds = 4;
const char* KindName(Kind kind);

// Relative weights by kind, from "hit=70,miss=20,invalid=5,large=5" (kinds left out weigh 0).
using Mix = std::array<int, kNumKinds>;
absl::StatusOr<Mix> ParseMix(const std::string& text);
std::string FormatMix(const Mix& mix);

// The request sources (TVMScript).
std::string HitSource();
std::string MissSource(uint32_t nonce, uint64_t counter);
// Alternates by `counter` between a syntax error and a type error.
std::string InvalidSource(uint64_t counter);
std::string LargeSource();
// The executable of LargeSource is larger than this (it holds a constant of this many bytes).
inline constexpr size_t kLargeConstantBytes = (1 << 20) + (1 << 17);

// The value at quantile q in [0, 1] of `sorted` (nearest rank); 0 for an empty vector.
double Percentile(const std::vector<double>& sorted, double q);

struct LoadOptions {
  std::string server;
  int concurrency = 4;
  absl::Duration duration = absl::Seconds(10);
  int64_t max_requests = 0;  // 0 = bounded by duration only
  Mix mix = {70, 20, 5, 5};
  std::string token;
  std::string tls_ca;
  std::string target = "llvm";
  absl::Duration deadline = absl::Seconds(60);
};

struct KindReport {
  int64_t count = 0;    // requests sent
  int64_t correct = 0;  // correct answers or correct errors
  std::vector<double> latencies_ms;  // of every request, sorted
};

struct LoadReport {
  LoadOptions options;
  double seconds = 0;  // wall time of the run
  std::array<KindReport, kNumKinds> kinds;
  // Requests that failed, by status code name ("INVALID_ARGUMENT", ...), and "WRONG_ANSWER" for
  // answers that failed a check. Expected errors (an invalid source's INVALID_ARGUMENT) included.
  std::map<std::string, int64_t> errors;
  std::vector<std::string> lost_examples;  // the first few lost requests, described
  int64_t total() const;
  int64_t lost() const;
};

// Compiles the hit and large modules once (their reference digests), then runs the load.
// An error means the warm-up failed (no server, wrong token...): nothing was measured.
absl::StatusOr<LoadReport> RunLoad(const LoadOptions& options);

// The report as text or as one JSON object; both end with a line "lost=N".
std::string FormatText(const LoadReport& report);
std::string FormatJson(const LoadReport& report);

}  // namespace kiln::load

#endif  // KILN_TESTS_LOAD_LOAD_H_
