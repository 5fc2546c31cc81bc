// Tests for the shared subcommand argument parser.
#include "client/cli/args.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace kiln::cli {
namespace {

TEST(ArgsTest, PositionalValuedRepeatedAndFlags) {
  auto a = Args::Parse({"f.py", "--input", "a.npy", "--input=b.npy", "-o", "out", "--summary", "g.py"},
                       {"--input", "-o"}, {"--summary"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->positional(), (std::vector<std::string>{"f.py", "g.py"}));
  EXPECT_EQ(a->GetAll("--input"), (std::vector<std::string>{"a.npy", "b.npy"}));
  EXPECT_EQ(a->Get("-o"), "out");
  EXPECT_TRUE(a->Has("--summary"));
  EXPECT_FALSE(a->Has("--name"));
  EXPECT_EQ(a->Get("--name", "main"), "main");
}

TEST(ArgsTest, Errors) {
  EXPECT_FALSE(Args::Parse({"--bogus"}, {}, {}).ok());
  EXPECT_FALSE(Args::Parse({"--target"}, {"--target"}, {}).ok());
  EXPECT_FALSE(Args::Parse({"--summary=1"}, {}, {"--summary"}).ok());
}

TEST(ArgsTest, HelpAndDoubleDash) {
  auto a = Args::Parse({"--help", "--", "--not-an-option"}, {}, {});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->help());
  EXPECT_EQ(a->positional(), (std::vector<std::string>{"--not-an-option"}));
}

TEST(ArgsTest, Defines) {
  auto a = Args::Parse({"--define", "M=128", "--define=DT=float16", "--define", "S=(2, 3)", "--define", "M=64"},
                       {"--define"}, {});
  ASSERT_TRUE(a.ok()) << a.status();
  std::map<std::string, std::string> want = {{"M", "64"}, {"DT", "float16"}, {"S", "(2, 3)"}};
  EXPECT_EQ(Defines(*a), want);
  EXPECT_EQ(ParseDefines({"E="})->at("E"), "");
  for (const char* bad : {"M", "=1", "1M=2", "a-b=3"}) {
    absl::StatusOr<std::map<std::string, std::string>> d = ParseDefines({bad});
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_NE(d.status().message().find(bad), std::string::npos) << d.status();
  }
}

TEST(ArgsTest, ThreadsOptionIsBounded) {
  auto threads = [](std::vector<std::string> argv) {
    return ThreadsOption(*Args::Parse(argv, {"--threads"}, {}));
  };
  EXPECT_EQ(*threads({}), 0);
  EXPECT_EQ(*threads({"--threads", "4"}), 4);
  EXPECT_EQ(*threads({"--threads", "1024"}), kMaxThreads);
  for (const char* bad : {"0", "-1", "1025", "100000", "x", "99999999999"}) {
    absl::StatusOr<int> t = threads({"--threads", bad});
    EXPECT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().message(), absl::StrCat("--threads needs an integer from 1 to 1024, not \"", bad, "\""));
  }
}

}  // namespace
}  // namespace kiln::cli
