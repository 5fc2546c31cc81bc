#include "runtime/read_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace kiln::runtime {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/read_file_test_" + std::to_string(getpid()) + "_" + name;
}

TEST(ReadRegularFileTest, ReadsARegularFile) {
  std::string path = TempPath("f");
  std::ofstream(path, std::ios::binary) << std::string("a\0b", 3);
  absl::StatusOr<std::string> data = ReadRegularFile(path);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(*data, std::string("a\0b", 3));
  std::remove(path.c_str());
}

TEST(ReadRegularFileTest, MissingFileIsNotFound) {
  absl::StatusOr<std::string> data = ReadRegularFile(TempPath("missing"));
  EXPECT_TRUE(absl::IsNotFound(data.status())) << data.status();
}

TEST(ReadRegularFileTest, DirectoryIsRefused) {
  std::string dir = TempPath("d");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  absl::StatusOr<std::string> data = ReadRegularFile(dir);
  EXPECT_TRUE(absl::IsFailedPrecondition(data.status()));
  EXPECT_EQ(data.status().message(), dir + " is a directory");
  rmdir(dir.c_str());
}

// /dev/zero never ends: before the bound it was read until bad_alloc.
TEST(ReadRegularFileTest, DeviceIsNotARegularFile) {
  absl::StatusOr<std::string> data = ReadRegularFile("/dev/zero");
  EXPECT_TRUE(absl::IsFailedPrecondition(data.status()));
  EXPECT_EQ(data.status().message(), "/dev/zero is not a regular file");
}

// A FIFO with no writer: opening it must not block.
TEST(ReadRegularFileTest, FifoIsRefusedWithoutBlocking) {
  std::string fifo = TempPath("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::string> data = ReadRegularFile(fifo);
  EXPECT_EQ(data.status().message(), fifo + " is not a regular file");
  std::remove(fifo.c_str());
}

TEST(ReadRegularFileTest, LargerThanTheBoundIsResourceExhausted) {
  std::string path = TempPath("big");
  std::ofstream(path, std::ios::binary) << std::string(100, 'x');
  EXPECT_TRUE(ReadRegularFile(path, 100).ok());
  absl::StatusOr<std::string> data = ReadRegularFile(path, 99);
  EXPECT_TRUE(absl::IsResourceExhausted(data.status())) << data.status();
  EXPECT_NE(data.status().message().find("99-byte limit"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kiln::runtime
