#include "server/testing/kilnd_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace kiln::server::testing {

std::string RunfilePath(const std::string& workspace_relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return workspace_relative;
  return absl::StrCat(srcdir, "/", workspace ? workspace : "kiln", "/", workspace_relative);
}

std::string HttpGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "";
  }
  std::string req = absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
    close(fd);
    return "";
  }
  std::string resp;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) resp.append(buf, n);
  close(fd);
  return resp;
}

std::string MakeTempDir(const std::string& prefix) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = absl::StrCat(base ? base : "/tmp", "/", prefix, "XXXXXX");
  char* dir = mkdtemp(tmpl.data());
  return dir ? std::string(dir) : std::string();
}

absl::StatusOr<KilndProcess> KilndProcess::Start(const std::string& binary, const std::vector<std::string>& args,
                                                 const std::string& log_path) {
  std::string dir = MakeTempDir("kilnd-port-");
  std::string port_file = dir + "/port";
  std::vector<std::string> argv_s = {binary, "--listen", "127.0.0.1:0", "--port-file", port_file};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    if (!log_path.empty()) {
      int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) dup2(fd, 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  KilndProcess proc(pid, 0);
  absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    std::ifstream in(port_file);
    int port = 0;
    if (in >> port && port > 0) {
      proc.port_ = port;
      return proc;
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      proc.pid_ = -1;
      return absl::InternalError(absl::StrCat(binary, " exited before serving (status ", status, ")"));
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat(binary, " did not write its port file within 60 s"));
}

KilndProcess::KilndProcess(KilndProcess&& other) noexcept : pid_(other.pid_), port_(other.port_) { other.pid_ = -1; }

KilndProcess::~KilndProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

absl::StatusOr<int> KilndProcess::Stop(int timeout_s) {
  if (pid_ <= 0) return absl::FailedPreconditionError("not running");
  kill(pid_, SIGTERM);
  absl::Time deadline = absl::Now() + absl::Seconds(timeout_s);
  while (absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return status;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat("kilnd did not stop within ", timeout_s, " s of SIGTERM"));
}

}  // namespace kiln::server::testing
