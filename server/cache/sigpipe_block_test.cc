#include "server/cache/sigpipe_block.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace kiln::server {
namespace {

bool Blocked() {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return sigismember(&mask, SIGPIPE) == 1;
}

bool Pending() {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, SIGPIPE) == 1;
}

TEST(SigpipeBlockTest, AWriteToAClosedSocketFailsWithEpipeInsteadOfKillingTheProcess) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  close(fds[1]);
  {
    SigpipeBlock block;
    EXPECT_EQ(write(fds[0], "x", 1), -1);
    EXPECT_EQ(errno, EPIPE);
  }
  // Reaching here means no SIGPIPE was delivered; none is left pending to arrive later either.
  EXPECT_FALSE(Pending());
  EXPECT_FALSE(Blocked());
  close(fds[0]);
}

TEST(SigpipeBlockTest, RestoresAMaskThatAlreadyBlockedSigpipe) {
  sigset_t pipe, old;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  { SigpipeBlock block; }
  EXPECT_TRUE(Blocked());
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

TEST(SigpipeBlockTest, LeavesASigpipePendingFromBeforeForItsOwner) {
  sigset_t pipe, old;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  pthread_kill(pthread_self(), SIGPIPE);  // pending: blocked
  { SigpipeBlock block; }
  EXPECT_TRUE(Pending());
  timespec zero = {0, 0};
  EXPECT_EQ(sigtimedwait(&pipe, nullptr, &zero), SIGPIPE);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace
}  // namespace kiln::server
