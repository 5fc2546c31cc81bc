#include "tests/load/load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/cpp/client.h"

namespace kiln::load {
namespace {

constexpr size_t kMaxLostExamples = 5;

// The module of hit and miss: A * a + b over a (4, 8) tensor, called from a Relax main.
std::string AxpySource(const std::string& a, const std::string& b) {
  return absl::StrCat(R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def axpb(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            C[i, j] = A[i, j] * T.float32()", a, R"() + T.float32()", b, R"()

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.axpb, (x,), out_ty=R.Tensor((4, 8), dtype="float32"))
        return y
)");
}

struct Check {
  bool correct = false;
  std::string error;  // status code name, or WRONG_ANSWER; empty for a correct answer
  std::string what;   // for a lost request: what was wrong
};

// The state the client threads share: the reference digests (read-only) and the counters.
struct Shared {
  const LoadOptions* options = nullptr;
  std::string hit_digest, large_digest;
  std::string hit_source, large_source;
  uint32_t nonce = 0;
  std::atomic<int64_t> issued{0};
  std::atomic<uint64_t> miss_counter{0};
  std::chrono::steady_clock::time_point end;
};

Check Expected(const absl::Status& st) {
  Check c;
  c.error = absl::StatusCodeToString(st.code());
  c.correct = st.code() == absl::StatusCode::kResourceExhausted && HasRetryInfo(st);
  if (!c.correct) c.what = absl::StrCat(c.error, ": ", st.message());
  return c;
}

Check WrongAnswer(std::string what) { return Check{false, "WRONG_ANSWER", std::move(what)}; }

// Sends one request of `kind` and checks its answer.
Check RunOne(const Client& client, Shared& shared, Kind kind) {
  v1::CompileRequest request;
  request.set_target(shared.options->target);
  request.set_filename(absl::StrCat(KindName(kind), ".py"));
  uint64_t n = 0;
  switch (kind) {
    case Kind::kHit: request.set_source(shared.hit_source); break;
    case Kind::kLarge: request.set_source(shared.large_source); break;
    case Kind::kMiss:
      n = shared.miss_counter.fetch_add(1);
      request.set_source(MissSource(shared.nonce, n));
      break;
    case Kind::kInvalid:
      n = shared.miss_counter.fetch_add(1);
      request.set_source(InvalidSource(n));
      break;
  }
  absl::StatusOr<CompileResult> r = client.Compile(request);
  if (kind == Kind::kInvalid) {
    if (r.ok()) return WrongAnswer("an invalid source compiled");
    if (r.status().code() != absl::StatusCode::kInvalidArgument) return Expected(r.status());
    std::vector<v1::Diagnostic> diags = DiagnosticsOf(r.status());
    bool located = std::any_of(diags.begin(), diags.end(), [](const v1::Diagnostic& d) { return d.line() > 0; });
    if (!located) return Check{false, "INVALID_ARGUMENT", "INVALID_ARGUMENT without a located diagnostic"};
    return Check{true, "INVALID_ARGUMENT", ""};
  }
  // Client::Compile already checked the bytes against the response's size and digest.
  if (!r.ok()) return Expected(r.status());
  const std::string& digest = r->response.digest();
  if (kind == Kind::kHit && digest != shared.hit_digest) {
    return WrongAnswer(absl::StrCat("hit: digest ", digest, ", the first compile gave ", shared.hit_digest));
  }
  if (kind == Kind::kLarge) {
    if (digest != shared.large_digest) {
      return WrongAnswer(absl::StrCat("large: digest ", digest, ", the first compile gave ", shared.large_digest));
    }
    if (!r->fetched) return WrongAnswer(absl::StrCat("large: ", r->executable.size(), " bytes came inline"));
  }
  if (kind == Kind::kMiss && r->response.cache() != v1::CACHE_MISS) {
    return WrongAnswer(absl::StrCat("miss: a unique module was answered from the ", CacheTierName(r->response.cache()),
                                    " cache"));
  }
  return Check{true, "", ""};
}

struct ThreadResult {
  std::array<KindReport, kNumKinds> kinds;
  std::map<std::string, int64_t> errors;
  std::vector<std::string> lost;
};

void ClientThread(const Client& client, Shared& shared, uint64_t seed, ThreadResult* out) {
  std::mt19937_64 rng(seed);
  const Mix& mix = shared.options->mix;
  std::discrete_distribution<int> pick(mix.begin(), mix.end());
  int64_t max = shared.options->max_requests;
  while (std::chrono::steady_clock::now() < shared.end) {
    if (max > 0 && shared.issued.fetch_add(1) >= max) break;
    Kind kind = static_cast<Kind>(pick(rng));
    auto start = std::chrono::steady_clock::now();
    Check c = RunOne(client, shared, kind);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    KindReport& k = out->kinds[static_cast<int>(kind)];
    ++k.count;
    k.latencies_ms.push_back(ms);
    if (c.correct) ++k.correct;
    if (!c.error.empty()) ++out->errors[c.error];
    if (!c.correct && out->lost.size() < kMaxLostExamples) out->lost.push_back(absl::StrCat(KindName(kind), ": ", c.what));
  }
}

// One compile before the run: the digest every later answer must match.
absl::StatusOr<std::string> Reference(const Client& client, const LoadOptions& options, const std::string& source,
                                      const char* what) {
  v1::CompileRequest request;
  request.set_source(source);
  request.set_target(options.target);
  request.set_filename(absl::StrCat(what, ".py"));
  absl::StatusOr<CompileResult> r = client.Compile(request);
  if (!r.ok()) {
    return absl::Status(r.status().code(), absl::StrCat("warm-up compile of the ", what, " module: ", r.status().message()));
  }
  return r->response.digest();
}

std::string Ms(double v) { return absl::StrFormat("%.3f", v); }

}  // namespace

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kHit: return "hit";
    case Kind::kMiss: return "miss";
    case Kind::kInvalid: return "invalid";
    case Kind::kLarge: return "large";
  }
  return "?";
}

absl::StatusOr<Mix> ParseMix(const std::string& text) {
  Mix mix = {0, 0, 0, 0};
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    int k = 0;
    while (k < kNumKinds && kv.first != KindName(static_cast<Kind>(k))) ++k;
    if (k == kNumKinds) return absl::InvalidArgumentError(absl::StrCat("--mix: unknown kind \"", kv.first, "\" (hit, miss, invalid, large)"));
    int w = 0;
    if (!absl::SimpleAtoi(kv.second, &w) || w < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--mix: bad weight \"", kv.second, "\" for ", kv.first));
    }
    mix[k] = w;
  }
  if (mix[0] + mix[1] + mix[2] + mix[3] == 0) return absl::InvalidArgumentError("--mix: every weight is 0");
  return mix;
}

std::string FormatMix(const Mix& mix) {
  std::vector<std::string> parts;
  for (int k = 0; k < kNumKinds; ++k) parts.push_back(absl::StrCat(KindName(static_cast<Kind>(k)), "=", mix[k]));
  return absl::StrJoin(parts, ",");
}

std::string HitSource() { return AxpySource("2", "1"); }

std::string MissSource(uint32_t nonce, uint64_t counter) {
  // Integers below 2^24 are exact in float32: the pair (nonce, counter) makes the module unique.
  return AxpySource(absl::StrCat(nonce % (1 << 23) + 3), absl::StrCat(counter % (1 << 24)) + ".5");
}

std::string InvalidSource(uint64_t counter) {
  if (counter % 2 == 0) {
    // Syntax error: the parameter list is not closed.
    return R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32") -> R.Tensor((4, 8), dtype="float32"):
        return x
)";
  }
  // Type error: adding tensors of incompatible shapes.
  return R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        z = R.add(x, y)
        return z
)";
}

std::string LargeSource() {
  constexpr int kRows = 144, kCols = static_cast<int>(kLargeConstantBytes / 8 / kRows);
  std::string row = absl::StrCat("[", absl::StrJoin(std::vector<std::string>(kCols, "1"), ","), "]");
  std::string value = absl::StrCat("[", absl::StrJoin(std::vector<std::string>(kRows, row), ", "), "]");
  std::string shape = absl::StrCat("(", kRows, ", ", kCols, ")");
  return absl::StrCat(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor()", shape, R"(, dtype="int64")) -> R.Tensor()", shape, R"(, dtype="int64"):
        c = R.const()", value, R"(, "int64")
        y = R.add(x, c)
        return y
)");
}

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(std::clamp(q, 0.0, 1.0) * sorted.size()));
  return sorted[std::max<size_t>(rank, 1) - 1];
}

int64_t LoadReport::total() const {
  int64_t n = 0;
  for (const KindReport& k : kinds) n += k.count;
  return n;
}

int64_t LoadReport::lost() const {
  int64_t n = 0;
  for (const KindReport& k : kinds) n += k.count - k.correct;
  return n;
}

absl::StatusOr<LoadReport> RunLoad(const LoadOptions& options) {
  if (options.concurrency < 1) return absl::InvalidArgumentError("--concurrency must be at least 1");
  ClientOptions co;
  co.address = options.server;
  co.token = options.token;
  co.root_cert_path = options.tls_ca;
  co.deadline = options.deadline;
  // As a production client would: ride out a connection that drops or cannot be made for a moment
  // (a loaded 2-core machine), past gRPC's own reconnect backoff (1 s at first). A request still
  // unanswered after that is lost.
  co.retry.max_attempts = 8;
  co.retry.initial_backoff = absl::Milliseconds(250);
  co.retry.max_backoff = absl::Seconds(2);
  // Each thread is one client with its own connection.
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < options.concurrency; ++i) {
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(co);
    if (!c.ok()) return c.status();
    clients.push_back(std::move(*c));
  }
  Shared shared;
  shared.options = &options;
  shared.hit_source = HitSource();
  shared.large_source = LargeSource();
  std::random_device rd;
  shared.nonce = rd();
  if (options.mix[static_cast<int>(Kind::kHit)] > 0) {
    absl::StatusOr<std::string> d = Reference(*clients[0], options, shared.hit_source, "hit");
    if (!d.ok()) return d.status();
    shared.hit_digest = *d;
  }
  if (options.mix[static_cast<int>(Kind::kLarge)] > 0) {
    absl::StatusOr<std::string> d = Reference(*clients[0], options, shared.large_source, "large");
    if (!d.ok()) return d.status();
    shared.large_digest = *d;
  }

  std::vector<ThreadResult> results(options.concurrency);
  auto start = std::chrono::steady_clock::now();
  shared.end = start + absl::ToChronoNanoseconds(options.duration);
  std::vector<std::thread> threads;
  for (int i = 0; i < options.concurrency; ++i) {
    threads.emplace_back(ClientThread, std::cref(*clients[i]), std::ref(shared), (static_cast<uint64_t>(rd()) << 32) ^ i,
                         &results[i]);
  }
  for (std::thread& t : threads) t.join();
  LoadReport report;
  report.options = options;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (ThreadResult& r : results) {
    for (int k = 0; k < kNumKinds; ++k) {
      report.kinds[k].count += r.kinds[k].count;
      report.kinds[k].correct += r.kinds[k].correct;
      report.kinds[k].latencies_ms.insert(report.kinds[k].latencies_ms.end(), r.kinds[k].latencies_ms.begin(),
                                          r.kinds[k].latencies_ms.end());
    }
    for (const auto& [code, n] : r.errors) report.errors[code] += n;
    for (std::string& l : r.lost) {
      if (report.lost_examples.size() < kMaxLostExamples) report.lost_examples.push_back(std::move(l));
    }
  }
  for (KindReport& k : report.kinds) std::sort(k.latencies_ms.begin(), k.latencies_ms.end());
  return report;
}

std::string FormatText(const LoadReport& r) {
  const LoadOptions& o = r.options;
  std::string out = absl::StrFormat("kiln-load: %s, concurrency %d, duration %.1f s%s, mix %s, target %s\n", o.server,
                                    o.concurrency, absl::ToDoubleSeconds(o.duration),
                                    o.max_requests > 0 ? absl::StrCat(", at most ", o.max_requests, " requests") : "",
                                    FormatMix(o.mix), o.target);
  absl::StrAppendFormat(&out, "requests %d in %.2f s: %.1f req/s\n", r.total(), r.seconds,
                        r.seconds > 0 ? r.total() / r.seconds : 0.0);
  absl::StrAppendFormat(&out, "%-8s %8s %8s %10s %10s %10s\n", "kind", "count", "correct", "p50_ms", "p90_ms", "p99_ms");
  for (int k = 0; k < kNumKinds; ++k) {
    const KindReport& kr = r.kinds[k];
    if (kr.count == 0) continue;
    absl::StrAppendFormat(&out, "%-8s %8d %8d %10s %10s %10s\n", KindName(static_cast<Kind>(k)), kr.count, kr.correct,
                          Ms(Percentile(kr.latencies_ms, 0.5)), Ms(Percentile(kr.latencies_ms, 0.9)),
                          Ms(Percentile(kr.latencies_ms, 0.99)));
  }
  std::vector<std::string> errors;
  for (const auto& [code, n] : r.errors) errors.push_back(absl::StrCat(code, "=", n));
  absl::StrAppend(&out, "errors by status: ", errors.empty() ? "none" : absl::StrJoin(errors, " "), "\n");
  for (const std::string& l : r.lost_examples) absl::StrAppend(&out, "lost: ", l, "\n");
  absl::StrAppend(&out, "lost=", r.lost(), "\n");
  return out;
}

std::string FormatJson(const LoadReport& r) {
  const LoadOptions& o = r.options;
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      if (static_cast<unsigned char>(c) < 0x20) {
        absl::StrAppendFormat(&q, "\\u%04x", c);
        continue;
      }
      q += c;
    }
    return q + "\"";
  };
  std::vector<std::string> kinds;
  for (int k = 0; k < kNumKinds; ++k) {
    const KindReport& kr = r.kinds[k];
    kinds.push_back(absl::StrCat(quote(KindName(static_cast<Kind>(k))), ": {\"count\": ", kr.count,
                                 ", \"correct\": ", kr.correct, ", \"p50_ms\": ", Ms(Percentile(kr.latencies_ms, 0.5)),
                                 ", \"p90_ms\": ", Ms(Percentile(kr.latencies_ms, 0.9)),
                                 ", \"p99_ms\": ", Ms(Percentile(kr.latencies_ms, 0.99)), "}"));
  }
  std::vector<std::string> errors, lost;
  for (const auto& [code, n] : r.errors) errors.push_back(absl::StrCat(quote(code), ": ", n));
  for (const std::string& l : r.lost_examples) lost.push_back(quote(l));
  std::string out = absl::StrCat(
      "{\"server\": ", quote(o.server), ", \"concurrency\": ", o.concurrency,
      ", \"duration_s\": ", absl::StrFormat("%.3f", absl::ToDoubleSeconds(o.duration)),
      ", \"max_requests\": ", o.max_requests, ", \"mix\": ", quote(FormatMix(o.mix)), ", \"target\": ", quote(o.target),
      ", \"requests\": ", r.total(), ", \"seconds\": ", absl::StrFormat("%.3f", r.seconds),
      ", \"throughput_rps\": ", absl::StrFormat("%.1f", r.seconds > 0 ? r.total() / r.seconds : 0.0),
      ", \"kinds\": {", absl::StrJoin(kinds, ", "), "}, \"errors\": {", absl::StrJoin(errors, ", "),
      "}, \"lost_examples\": [", absl::StrJoin(lost, ", "), "], \"lost\": ", r.lost(), "}\n");
  absl::StrAppend(&out, "lost=", r.lost(), "\n");
  return out;
}

}  // namespace kiln::load
