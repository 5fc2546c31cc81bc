#include "runtime/port_file.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace kiln::runtime {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PortFileTest, WritesThePortAndReplacesAnOldFile) {
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/port";
  std::ofstream(path) << "stale contents\n";
  ASSERT_TRUE(WritePortFile(path, 40123).ok());
  EXPECT_EQ(Read(path), "40123\n");
  // No temporary file is left behind.
  EXPECT_NE(access((path + ".tmp." + std::to_string(getpid())).c_str(), F_OK), 0);
}

TEST(PortFileTest, UnwritableDirectoryIsAnError) {
  absl::Status st = WritePortFile("/nonexistent-dir/port", 1);
  EXPECT_EQ(st.code(), absl::StatusCode::kInternal);
  EXPECT_NE(st.message().find("/nonexistent-dir/port"), std::string::npos) << st;
}

}  // namespace
}  // namespace kiln::runtime
