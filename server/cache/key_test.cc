#include "server/cache/key.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "compiler/driver/relax_build.h"
#include "compiler/ir/serialize.h"
#include "compiler/script/script.h"
#include "compiler/version.h"
#include "gtest/gtest.h"

namespace kiln::server {
namespace {

constexpr char kModule[] = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(x, y)
            gv: R.Tensor((4, 8), dtype="float32") = R.multiply(lv, R.const(2.0, "float32"))
            R.output(gv)
        return gv
)";

// The same module laid out differently: other comments, blank lines, line breaks inside the
// parentheses, spacing around operators and commas.
constexpr char kReformatted[] = R"(# a different header comment


@I.ir_module
class Module:

    @R.function
    def main(x: R.Tensor((4,8), dtype="float32"),
             y: R.Tensor( (4, 8), dtype = "float32" )) -> R.Tensor((4, 8), dtype="float32"):
        # a comment in the body
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(x,y)

            gv: R.Tensor((4, 8), dtype="float32") = R.multiply(
                lv, R.const(2.0, "float32"))
            R.output(gv)
        return gv
)";

ir::IRModule Parse(const std::string& text, const std::string& filename = "model.py") {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(text, filename);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return script::AsModule(*parsed);
}

KeyMaterial Material() {
  KeyMaterial m;
  m.target = "c";
  m.options = {{"opt_level", "3"}};
  return m;
}

std::string Key(const ir::IRModule& module, const KeyMaterial& material) {
  absl::StatusOr<CacheKey> key = ComputeCacheKey(module, material);
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? key->Hex() : "";
}

TEST(CacheKeyTest, FormattingCommentsAndFileNameDoNotChangeTheKey) {
  ir::IRModule a = Parse(kModule, "a.py");
  ir::IRModule b = Parse(kReformatted, "elsewhere/b.py");
  EXPECT_EQ(Key(a, Material()), Key(b, Material()));
  // Spans really differ (the serialization without canonicalization would): the test is not vacuous.
  EXPECT_NE(*ir::Serialize(a), *ir::Serialize(b));
  EXPECT_EQ(*CanonicalModuleBytes(a), *CanonicalModuleBytes(b));
}

// Checked mode is part of the key, and a checked build's messages carry source locations, so its
// key keeps the spans and the file name: layout that changes a location changes the key.
TEST(CacheKeyTest, CheckedModeChangesTheKeyAndKeysOnSpans) {
  ir::IRModule a = Parse(kModule, "a.py");
  KeyMaterial checked = Material();
  checked.checked = true;
  EXPECT_NE(Key(a, checked), Key(a, Material()));
  EXPECT_EQ(Key(a, checked), Key(Parse(kModule, "a.py"), checked));
  EXPECT_NE(Key(a, checked), Key(Parse(kModule, "b.py"), checked));
  EXPECT_NE(Key(a, checked), Key(Parse(kReformatted, "a.py"), checked));
  EXPECT_NE(*CanonicalModuleBytes(a, /*keep_spans=*/true), *CanonicalModuleBytes(a));
}

// What the key promises: equal keys mean equal executables. The two layouts of one module build
// to the same bytes (target llvm, whose builds are reproducible).
TEST(CacheKeyTest, SameKeyBuildsTheSameExecutable) {
  absl::StatusOr<vm::Executable> a = driver::BuildExecutable(Parse(kModule, "a.py"), "llvm");
  absl::StatusOr<vm::Executable> b = driver::BuildExecutable(Parse(kReformatted, "b.py"), "llvm");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->Serialize(), b->Serialize());
}

// Names are kept in the key on purpose: a renamed binding changes the executable's bytes (its name
// reaches the kernel library), so the key must change with it.
TEST(CacheKeyTest, ARenamedVariableChangesTheKeyAndTheExecutable) {
  std::string renamed = absl::StrReplaceAll(kModule, {{"lv", "hidden"}});
  EXPECT_NE(Key(Parse(kModule), Material()), Key(Parse(renamed), Material()));
  absl::StatusOr<vm::Executable> a = driver::BuildExecutable(Parse(kModule), "llvm");
  absl::StatusOr<vm::Executable> b = driver::BuildExecutable(Parse(renamed), "llvm");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->Serialize(), b->Serialize());
}

TEST(CacheKeyTest, KeyIsStableAcrossParses) {
  EXPECT_EQ(Key(Parse(kModule), Material()), Key(Parse(kModule), Material()));
  EXPECT_EQ(Key(Parse(kModule), Material()).size(), 64u);
}

TEST(CacheKeyTest, AChangedConstantChangesTheKey) {
  std::string changed = absl::StrReplaceAll(kModule, {{"R.const(2.0", "R.const(3.0"}});
  ASSERT_NE(changed, kModule);
  EXPECT_NE(Key(Parse(kModule), Material()), Key(Parse(changed), Material()));
}

TEST(CacheKeyTest, AChangedShapeChangesTheKey) {
  std::string changed = absl::StrReplaceAll(kModule, {{"(4, 8)", "(4, 16)"}});
  EXPECT_NE(Key(Parse(kModule), Material()), Key(Parse(changed), Material()));
}

TEST(CacheKeyTest, TargetOptionsEntriesVarsAndVersionChangeTheKey) {
  EXPECT_EQ(Material().compiler_version, kKilnVersion);  // the default
  ir::IRModule m = Parse(kModule);
  std::string base = Key(m, Material());

  KeyMaterial target = Material();
  target.target = "llvm";
  EXPECT_NE(Key(m, target), base);

  KeyMaterial option = Material();
  option.options["opt_level"] = "2";
  EXPECT_NE(Key(m, option), base);
  KeyMaterial extra_option = Material();
  extra_option.options["fuse"] = "false";
  EXPECT_NE(Key(m, extra_option), base);

  KeyMaterial entries = Material();
  entries.entries = {"main"};
  EXPECT_NE(Key(m, entries), base);

  KeyMaterial vars = Material();
  vars.extra_vars = {{"n", "128"}};
  EXPECT_NE(Key(m, vars), base);

  KeyMaterial version = Material();
  version.compiler_version = "0.1.1";
  EXPECT_NE(Key(m, version), base);
}

TEST(CacheKeyTest, TargetIsNormalizedBeforeHashing) {
  // "llvm" and its normalized spelling ("llvm -mtriple=... -mcpu=... -opt-level=N") are one target.
  ir::IRModule m = Parse(kModule);
  KeyMaterial plain = Material();
  plain.target = "llvm";
  absl::StatusOr<std::string> normalized = driver::NormalizeTarget("llvm");
  ASSERT_TRUE(normalized.ok()) << normalized.status();
  ASSERT_NE(*normalized, "llvm");
  KeyMaterial spelled = Material();
  spelled.target = *normalized;
  EXPECT_EQ(Key(m, plain), Key(m, spelled));
}

TEST(CacheKeyTest, FramingSeparatesAdjacentParts) {
  ir::IRModule m = Parse(kModule);
  KeyMaterial a = Material();
  a.options = {{"ab", "c"}};
  KeyMaterial b = Material();
  b.options = {{"a", "bc"}};
  EXPECT_NE(Key(m, a), Key(m, b));
}

TEST(CacheKeyTest, BadTargetIsInvalidArgument) {
  KeyMaterial m = Material();
  m.target = "not-a-target";
  EXPECT_EQ(ComputeCacheKey(Parse(kModule), m).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::server
