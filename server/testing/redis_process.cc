#include "server/testing/redis_process.h"

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace kiln::server::testing {
namespace {

struct FreeReply {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, FreeReply>;

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace

bool RedisServerInstalled() { return access(kRedisServer, X_OK) == 0; }

::testing::AssertionResult RedisServer::Start(std::vector<std::string> extra_args) {
  if (port_ < 0) port_ = FreeLoopbackPort();
  const char* tmp = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/redis-", getpid(), "-", port_);
  if (system(absl::StrCat("mkdir -p '", dir, "'").c_str()) != 0) return ::testing::AssertionFailure() << dir;
  std::vector<std::string> args = {kRedisServer, "--port", absl::StrCat(port_), "--bind", "127.0.0.1",
                                   "--save", "", "--appendonly", "no", "--dir", dir,
                                   "--logfile", dir + "/log", "--daemonize", "no"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_ = fork();
  if (pid_ == 0) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(kRedisServer, argv.data());
    _exit(127);
  }
  for (absl::Time deadline = absl::Now() + absl::Seconds(5); absl::Now() < deadline;) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return ::testing::AssertionFailure() << "redis-server exited at start; see " << dir << "/log";
    }
    redisContext* c = redisConnect("127.0.0.1", port_);
    bool up = c != nullptr && c->err == 0;
    if (up) {
      Reply r(static_cast<redisReply*>(redisCommand(c, "PING")));
      up = r != nullptr && r->type == REDIS_REPLY_STATUS;
    }
    redisFree(c);
    if (up) return ::testing::AssertionSuccess();
    absl::SleepFor(absl::Milliseconds(5));
  }
  return ::testing::AssertionFailure() << "redis-server did not answer on port " << port_;
}

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace kiln::server::testing
