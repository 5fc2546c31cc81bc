#include "client/cli/files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace kiln::cli {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/files_test_" + std::to_string(getpid()) + "_" + name;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  int n = 0;
  while (dirent* e = readdir(d)) n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
  closedir(d);
  return n;
}

TEST(PrepareOutputDirTest, CreatesMissingParents) {
  std::string dir = TempPath("a") + "/b/c";
  ASSERT_TRUE(PrepareOutputDir(dir).ok());
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_TRUE(PrepareOutputDir(dir).ok());  // an existing directory is fine
}

TEST(PrepareOutputDirTest, AFileInTheWayIsAnError) {
  std::string file = TempPath("file");
  std::ofstream(file) << "x";
  absl::Status st = PrepareOutputDir(file + "/out");
  EXPECT_TRUE(absl::IsFailedPrecondition(st));
  EXPECT_EQ(st.message(), "output directory " + file + "/out: " + file + " is not a directory");
  EXPECT_EQ(PrepareOutputDir(file).message(), "output directory " + file + ": " + file + " is not a directory");
}

TEST(ReplaceFileAtomicallyTest, ReplacesKeepingThePermissionsAndNoTemporary) {
  std::string dir = TempPath("atomic");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  std::string path = dir + "/f.py";
  std::ofstream(path) << "old text, longer than the new one";
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(ReplaceFileAtomically(path, "new").ok());
  EXPECT_EQ(Slurp(path), "new");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(CountEntries(dir), 1);
}

TEST(ReplaceFileAtomicallyTest, AMissingDirectoryLeavesNothing) {
  absl::Status st = ReplaceFileAtomically(TempPath("no/such/dir/f.py"), "x");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot create a temporary file next to"), absl::string_view::npos) << st;
}

}  // namespace
}  // namespace kiln::cli
