// Test support: runs a real kilnd binary on a loopback port (--listen 127.0.0.1:0 --port-file) and
// stops it again, for integration tests of the service and its clients.
#ifndef KILN_SERVER_TESTING_KILND_PROCESS_H_
#define KILN_SERVER_TESTING_KILND_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kiln::server::testing {

// The path of a binary of this workspace in the test's runfiles ("server/kilnd").
std::string RunfilePath(const std::string& workspace_relative);

// The whole response (status line, headers, body) to a plain HTTP/1.1 GET of 127.0.0.1:port/path,
// as a Prometheus scraper sends it; "" if the connection fails.
std::string HttpGet(int port, const std::string& path);

// A fresh directory under $TEST_TMPDIR (else /tmp).
std::string MakeTempDir(const std::string& prefix);

class KilndProcess {
 public:
  // Starts `binary` with `args` plus --listen/--port-file, waits (up to 60 s) until it serves.
  // Its stderr goes to `log_path` (the test's log when empty).
  static absl::StatusOr<KilndProcess> Start(const std::string& binary, const std::vector<std::string>& args,
                                            const std::string& log_path = "");
  KilndProcess(KilndProcess&& other) noexcept;
  KilndProcess& operator=(KilndProcess&&) = delete;
  ~KilndProcess();  // SIGKILL if still running

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // SIGTERM, then waits; the exit status (as waitpid gives it), or an error after `timeout_s`.
  absl::StatusOr<int> Stop(int timeout_s = 30);

 private:
  KilndProcess(pid_t pid, int port) : pid_(pid), port_(port) {}
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace kiln::server::testing

#endif  // KILN_SERVER_TESTING_KILND_PROCESS_H_
