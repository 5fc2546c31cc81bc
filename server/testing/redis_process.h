// Test support: a throwaway redis-server (Debian's /usr/bin/redis-server) on a free loopback port,
// without persistence, in its own directory; killed with the object.
#ifndef KILN_SERVER_TESTING_REDIS_PROCESS_H_
#define KILN_SERVER_TESTING_REDIS_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::server::testing {

inline constexpr char kRedisServer[] = "/usr/bin/redis-server";

// True if kRedisServer is installed (tests skip with a message otherwise).
bool RedisServerInstalled();

class RedisServer {
 public:
  ~RedisServer() { Kill(); }

  // Starts the server (on the port it had before, after a Kill) and waits until it answers PING.
  ::testing::AssertionResult Start(std::vector<std::string> extra_args = {});
  void Kill();

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int port_ = -1;
  pid_t pid_ = -1;
};

}  // namespace kiln::server::testing

#endif  // KILN_SERVER_TESTING_REDIS_PROCESS_H_
