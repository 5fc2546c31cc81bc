#include "tests/load/load.h"

#include "absl/strings/match.h"
#include "compiler/driver/relax_build.h"
#include "compiler/ir/diagnostic.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::load {
namespace {

TEST(ParseMixTest, WeightsByKind) {
  absl::StatusOr<Mix> m = ParseMix("hit=70,miss=20,invalid=5,large=5");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*m, (Mix{70, 20, 5, 5}));
  m = ParseMix("large=1");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (Mix{0, 0, 0, 1}));
  EXPECT_EQ(FormatMix(*m), "hit=0,miss=0,invalid=0,large=1");
  EXPECT_FALSE(ParseMix("hot=1").ok());
  EXPECT_FALSE(ParseMix("hit=-1").ok());
  EXPECT_FALSE(ParseMix("hit=x").ok());
  EXPECT_FALSE(ParseMix("hit=0,miss=0").ok());
  EXPECT_FALSE(ParseMix("").ok());
}

TEST(PercentileTest, NearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(Percentile(v, 0.5), 50);
  EXPECT_EQ(Percentile(v, 0.9), 90);
  EXPECT_EQ(Percentile(v, 0.99), 99);
  EXPECT_EQ(Percentile(v, 1.0), 100);
  EXPECT_EQ(Percentile(v, 0.0), 1);
  EXPECT_EQ(Percentile({7}, 0.99), 7);
  EXPECT_EQ(Percentile({}, 0.5), 0);
}

absl::StatusOr<vm::Executable> Build(const std::string& source) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "t.py");
  if (!parsed.ok()) return parsed.status();
  return driver::BuildModuleExecutable(script::AsModule(*parsed), "llvm");
}

TEST(SourcesTest, HitAndMissBuildAndMissesDiffer) {
  absl::StatusOr<vm::Executable> hit = Build(HitSource());
  ASSERT_TRUE(hit.ok()) << hit.status();
  std::string hit_bytes = hit->Serialize();
  absl::StatusOr<vm::Executable> a = Build(MissSource(12345, 0));
  absl::StatusOr<vm::Executable> b = Build(MissSource(12345, 1));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  // Different modules, so different cache keys and different executables.
  EXPECT_NE(MissSource(12345, 0), MissSource(12345, 1));
  EXPECT_NE(MissSource(12345, 0), MissSource(12346, 0));
  EXPECT_NE(a->Serialize(), b->Serialize());
  EXPECT_NE(a->Serialize(), hit_bytes);
}

TEST(SourcesTest, InvalidSourcesFailWithALocatedError) {
  for (uint64_t n : {0, 1}) {
    ir::DiagnosticList diags;
    absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(InvalidSource(n), "bad.py", &diags);
    ASSERT_FALSE(parsed.ok()) << "variant " << n;
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status()));
    ASSERT_TRUE(diags.has_errors()) << "variant " << n;
    EXPECT_GT(diags.items()[0].span.line, 0) << parsed.status();
  }
  EXPECT_NE(InvalidSource(0), InvalidSource(1));  // a syntax error and a type error
}

TEST(SourcesTest, LargeExecutableExceedsOneMiB) {
  absl::StatusOr<vm::Executable> large = Build(LargeSource());
  ASSERT_TRUE(large.ok()) << large.status();
  EXPECT_GT(large->Serialize().size(), kLargeConstantBytes);
  EXPECT_GT(kLargeConstantBytes, size_t{1} << 20);
}

TEST(FormatTest, BothFormatsEndWithLost) {
  LoadReport r;
  r.options.server = "127.0.0.1:1";
  r.seconds = 2;
  r.kinds[0].count = 10;
  r.kinds[0].correct = 9;
  r.kinds[0].latencies_ms = {1, 2, 3};
  r.kinds[2].count = 3;
  r.kinds[2].correct = 2;
  r.errors["INVALID_ARGUMENT"] = 3;
  r.errors["WRONG_ANSWER"] = 1;
  r.lost_examples = {"hit: \"quoted\""};
  EXPECT_EQ(r.total(), 13);
  EXPECT_EQ(r.lost(), 2);
  std::string text = FormatText(r);
  EXPECT_TRUE(absl::EndsWith(text, "\nlost=2\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "6.5 req/s")) << text;
  EXPECT_TRUE(absl::StrContains(text, "INVALID_ARGUMENT=3 WRONG_ANSWER=1")) << text;
  std::string json = FormatJson(r);
  EXPECT_TRUE(absl::EndsWith(json, "}\nlost=2\n")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"lost_examples\": [\"hit: \\\"quoted\\\"\"]")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"hit\": {\"count\": 10, \"correct\": 9, \"p50_ms\": 2.000")) << json;
}

}  // namespace
}  // namespace kiln::load
