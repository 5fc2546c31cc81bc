#include "runtime/agent/agent_flags.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace kiln::agent {
namespace {

std::string TempFile(const std::string& name, const std::string& text) {
  std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(AgentFlagsTest, ParsesTheDocumentedCommandLine) {
  std::string token = TempFile("token", "  s3cret\n");
  std::string line = absl::StrCat(
      "--listen 127.0.0.1:0 --port-file=/tmp/p --kilnd localhost:7070 --key cpu-zen4 --device cpu --token-file ", token,
      " --cache-dir /tmp/c --max-sessions 8 --memory-limit 1024 --max-lease-seconds 30 --capacity 2");
  absl::StatusOr<AgentConfig> c = ParseAgentFlags(absl::StrSplit(line, ' '));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->listen, "127.0.0.1:0");
  EXPECT_EQ(c->port_file, "/tmp/p");
  EXPECT_EQ(c->kilnd, "localhost:7070");
  EXPECT_EQ(c->key, "cpu-zen4");
  EXPECT_EQ(c->token, "s3cret");
  EXPECT_EQ(c->cache_dir, "/tmp/c");
  EXPECT_EQ(c->sessions.max_sessions, 8);
  EXPECT_EQ(c->sessions.max_memory_limit, 1024u);
  EXPECT_EQ(c->sessions.max_lease, std::chrono::seconds(30));
  EXPECT_EQ(c->capacity, 2u);
  EXPECT_EQ(c->capacity, 2u);
  EXPECT_EQ(c->sessions.default_lease, std::chrono::seconds(30));  // capped by the max
}

TEST(AgentFlagsTest, RejectsBadInputWithTheFlagsName) {
  EXPECT_NE(ParseAgentFlags({"--bogus"}).status().message().find("--bogus"), std::string::npos);
  EXPECT_NE(ParseAgentFlags({"--listen"}).status().message().find("--listen needs a value"), std::string::npos);
  EXPECT_NE(ParseAgentFlags({"--max-sessions", "x"}).status().message().find("--max-sessions"), std::string::npos);
  EXPECT_NE(ParseAgentFlags({"--token-file", "/nonexistent/t"}).status().message().find("cannot read"),
            std::string::npos);
  EXPECT_NE(ParseAgentFlags({"--token-file", TempFile("empty", " \n")}).status().message().find("empty"),
            std::string::npos);
  EXPECT_NE(ParseAgentFlags({"--device", "cuda"}).status().message().find("cpu"), std::string::npos);
}

}  // namespace
}  // namespace kiln::agent
