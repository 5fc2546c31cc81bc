// kiln-load --server HOST:PORT --concurrency C --duration S [--requests N]
//           [--mix hit=70,miss=20,invalid=5,large=5] [--json] [--token-file T] [--tls-ca C]
// Drives a kilnd (see load.h) and prints the report; the last line is `lost=N`. Exits 0 when
// nothing was lost, 1 when something was, 2 on bad flags or a failed warm-up.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "server/service/command_line.h"
#include "tests/load/load.h"

ABSL_FLAG(std::string, server, "", "the kilnd to drive, HOST:PORT");
ABSL_FLAG(int, concurrency, 4, "concurrent clients (threads, one connection each)");
ABSL_FLAG(double, duration, 10, "seconds to run");
ABSL_FLAG(int64_t, requests, 0, "stop after this many requests (0 = only --duration bounds the run)");
ABSL_FLAG(std::string, mix, "hit=70,miss=20,invalid=5,large=5", "relative weights of the request kinds");
ABSL_FLAG(bool, json, false, "print the report as one JSON object (then the lost=N line)");
ABSL_FLAG(std::string, token_file, "", "file whose first line is the bearer token");
ABSL_FLAG(std::string, tls_ca, "", "CA certificate (PEM) to reach the server over TLS");
ABSL_FLAG(std::string, target, "llvm", "the target every request compiles for");
ABSL_FLAG(double, deadline, 60, "per-call deadline in seconds");

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "kiln-load: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "drives a kilnd with concurrent clients and checks every answer.\n"
      "usage: kiln-load --server HOST:PORT --concurrency C --duration S [--requests N]\n"
      "                 [--mix hit=70,miss=20,invalid=5,large=5] [--json] [--token-file T] [--tls-ca C]");
  kiln::server::ParseDashedCommandLine(argc, argv);  // positional arguments are not used
  kiln::load::LoadOptions o;
  o.server = absl::GetFlag(FLAGS_server);
  if (o.server.empty()) return Fail("--server HOST:PORT is required");
  o.concurrency = absl::GetFlag(FLAGS_concurrency);
  if (o.concurrency < 1) return Fail("--concurrency must be at least 1");
  double duration = absl::GetFlag(FLAGS_duration);
  if (!(duration > 0)) return Fail("--duration must be positive");
  o.duration = absl::Seconds(duration);
  o.max_requests = absl::GetFlag(FLAGS_requests);
  if (o.max_requests < 0) return Fail("--requests must not be negative");
  absl::StatusOr<kiln::load::Mix> mix = kiln::load::ParseMix(absl::GetFlag(FLAGS_mix));
  if (!mix.ok()) return Fail(std::string(mix.status().message()));
  o.mix = *mix;
  o.tls_ca = absl::GetFlag(FLAGS_tls_ca);
  o.target = absl::GetFlag(FLAGS_target);
  o.deadline = absl::Seconds(absl::GetFlag(FLAGS_deadline));
  if (std::string path = absl::GetFlag(FLAGS_token_file); !path.empty()) {
    std::ifstream in(path);
    if (!in) return Fail(absl::StrCat("cannot read ", path));
    std::string line;
    std::getline(in, line);
    o.token = std::string(absl::StripAsciiWhitespace(line));
  }
  absl::StatusOr<kiln::load::LoadReport> report = kiln::load::RunLoad(o);
  if (!report.ok()) {
    return Fail(absl::StrCat(absl::StatusCodeToString(report.status().code()), ": ", report.status().message()));
  }
  std::string text = absl::GetFlag(FLAGS_json) ? kiln::load::FormatJson(*report) : kiln::load::FormatText(*report);
  std::fputs(text.c_str(), stdout);
  return report->lost() == 0 ? 0 : 1;
}
