// Tests for the shared subcommand argument parser.
#include "client/cli/args.h"

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

}  // namespace
}  // namespace kiln::cli
