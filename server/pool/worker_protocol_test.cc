// Frames over a socketpair and a pipe: round trip, the clean end of a stream, a truncated frame, a
// length over the cap (rejected before any allocation), a deadline, and a closed peer.
#include "server/pool/worker_protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace kiln::server {
namespace {

struct SocketPair {
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd) {
      if (f >= 0) close(f);
    }
  }
  void Close(int i) {
    close(fd[i]);
    fd[i] = -1;
  }
  int fd[2] = {-1, -1};
};

TEST(WorkerProtocolTest, RoundTripsFramesOfAnySize) {
  SocketPair s;
  std::string big(3 << 20, 'x');  // larger than a socket buffer and than one read step
  big[12345] = '\0';
  std::thread writer([&] {
    EXPECT_TRUE(WriteFrame(s.fd[0], "").ok());
    EXPECT_TRUE(WriteFrame(s.fd[0], "hello").ok());
    EXPECT_TRUE(WriteFrame(s.fd[0], big).ok());
  });
  EXPECT_EQ(ReadFrame(s.fd[1]).value(), "");
  EXPECT_EQ(ReadFrame(s.fd[1]).value(), "hello");
  EXPECT_EQ(ReadFrame(s.fd[1]).value(), big);
  writer.join();
}

TEST(WorkerProtocolTest, WorksOnPipes) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_TRUE(WriteFrame(p[1], "abc").ok());
  close(p[1]);
  EXPECT_EQ(ReadFrame(p[0]).value(), "abc");
  EXPECT_TRUE(absl::IsOutOfRange(ReadFrame(p[0]).status()));
  close(p[0]);
}

TEST(WorkerProtocolTest, CleanEndIsOutOfRangeAndTruncationIsDataLoss) {
  SocketPair clean;
  clean.Close(0);
  EXPECT_TRUE(absl::IsOutOfRange(ReadFrame(clean.fd[1]).status()));

  SocketPair cut;
  std::string header("\x0a\0\0\0\0\0\0\0abc", 11);  // announces 10 bytes, sends 3
  ASSERT_EQ(write(cut.fd[0], header.data(), header.size()), 11);
  cut.Close(0);
  absl::StatusOr<std::string> frame = ReadFrame(cut.fd[1]);
  EXPECT_TRUE(absl::IsDataLoss(frame.status())) << frame.status();

  SocketPair half_header;
  ASSERT_EQ(write(half_header.fd[0], "\x01\x02", 2), 2);
  half_header.Close(0);
  EXPECT_TRUE(absl::IsDataLoss(ReadFrame(half_header.fd[1]).status()));
}

TEST(WorkerProtocolTest, RejectsALengthOverTheCap) {
  SocketPair s;
  std::string header("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);  // 2^63 - 1 bytes
  ASSERT_EQ(write(s.fd[0], header.data(), header.size()), 8);
  absl::StatusOr<std::string> frame = ReadFrame(s.fd[1]);
  EXPECT_TRUE(absl::IsInvalidArgument(frame.status())) << frame.status();
  ASSERT_TRUE(WriteFrame(s.fd[0], "0123456789").ok());
  frame = ReadFrame(s.fd[1], /*max_bytes=*/4);
  EXPECT_TRUE(absl::IsInvalidArgument(frame.status())) << frame.status();
}

TEST(WorkerProtocolTest, ReadAndWriteHonourTheDeadline) {
  SocketPair s;
  absl::Time start = absl::Now();
  absl::StatusOr<std::string> frame = ReadFrame(s.fd[1], kMaxFrameBytes, absl::Now() + absl::Milliseconds(50));
  EXPECT_TRUE(absl::IsDeadlineExceeded(frame.status())) << frame.status();
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
  // Nobody reads fd[1]: a frame larger than the socket buffers cannot be written in time.
  absl::Status sent = WriteFrame(s.fd[0], std::string(64 << 20, 'y'), absl::Now() + absl::Milliseconds(50));
  EXPECT_TRUE(absl::IsDeadlineExceeded(sent)) << sent;
}

TEST(WorkerProtocolTest, WritingToAClosedPeerIsUnavailableNotSigpipe) {
  SocketPair s;
  s.Close(1);
  absl::Status sent = WriteFrame(s.fd[0], "anyone there?");
  EXPECT_TRUE(absl::IsUnavailable(sent)) << sent;
}

}  // namespace
}  // namespace kiln::server
