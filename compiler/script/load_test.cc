#include "compiler/script/load.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "compiler/ir/serialize.h"
#include "gtest/gtest.h"

namespace kiln::script {
namespace {

constexpr char kSource[] = R"PY(@T.prim_func
def add_one(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + T.float32(1.0)
)PY";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/load_test_" + std::to_string(getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& data) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

TEST(LoadTest, ParseOptionsBindTemplateValues) {
  std::string py = Write("tmpl.py", R"PY(@T.prim_func
def fill(A: T.Buffer((N,), DT)):
    for i in range(N):
        A[i] = T.Cast(DT, i)
)PY");
  std::string diags;
  EXPECT_FALSE(LoadModule(py, "", &diags).ok());
  EXPECT_NE(diags.find("N"), std::string::npos) << diags;
  ParseOptions o;
  o.defines = {{"N", "7"}, {"DT", "float16"}};
  absl::StatusOr<ir::IRModule> seven = LoadModule(py, o, &diags);
  ASSERT_TRUE(seven.ok()) << diags;
  o.defines["N"] = "9";
  absl::StatusOr<ir::IRModule> nine = LoadModule(py, o, &diags);
  ASSERT_TRUE(nine.ok()) << diags;
  absl::StatusOr<std::string> a = ir::SerializeToJson(*seven);
  absl::StatusOr<std::string> b = ir::SerializeToJson(*nine);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->find("float16"), std::string::npos);
  EXPECT_NE(*a, *b);
}

TEST(LoadTest, TVMScriptAndBothSerializedForms) {
  std::string py = Write("m.py", kSource);
  std::string diags = "stale";
  absl::StatusOr<ir::IRModule> m = LoadModule(py, "", &diags);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->Lookup("add_one").defined());
  EXPECT_EQ(diags, "");

  absl::StatusOr<std::string> bin = ir::Serialize(*m);
  ASSERT_TRUE(bin.ok()) << bin.status();
  absl::StatusOr<ir::IRModule> from_bin = LoadModule(Write("m.bin", *bin), "");
  ASSERT_TRUE(from_bin.ok()) << from_bin.status();
  EXPECT_TRUE(from_bin->Lookup("add_one").defined());

  absl::StatusOr<std::string> json = ir::SerializeToJson(*m);
  ASSERT_TRUE(json.ok()) << json.status();
  absl::StatusOr<ir::IRModule> from_json = LoadModule(Write("m.json", *json), "");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_TRUE(from_json->Lookup("add_one").defined());
}

TEST(LoadTest, ErrorsNameTheFile) {
  std::string bad = Write("bad.py", "@T.prim_func\ndef f(:\n");
  std::string diags;
  absl::StatusOr<ir::IRModule> m = LoadModule(bad, "", &diags);
  EXPECT_EQ(m.status(), absl::InvalidArgumentError(bad + ": invalid TVMScript"));
  EXPECT_NE(diags.find(bad + ":2:"), std::string::npos) << diags;
  EXPECT_NE(diags.find("error"), std::string::npos) << diags;

  EXPECT_EQ(LoadModule(TempPath("missing.py"), "").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ReadFile(std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp").status().code(),
            absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<ir::IRModule> json = LoadModule(Write("broken.json", "{not json"), "");
  EXPECT_EQ(json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(json.status().message().rfind(TempPath("broken.json") + ": ", 0), 0u) << json.status();
}

// Python accepts a UTF-8 byte order mark at the start of a source file.
TEST(LoadTest, ByteOrderMarkIsSkipped) {
  std::string py = Write("bom.py", std::string("\xEF\xBB\xBF") + kSource);
  std::string diags;
  absl::StatusOr<ir::IRModule> m = LoadModule(py, "", &diags);
  ASSERT_TRUE(m.ok()) << m.status() << diags;
  EXPECT_TRUE(m->Lookup("add_one").defined());
}

TEST(LoadTest, DevicesAndDirectoriesAreRefused) {
  absl::StatusOr<ir::IRModule> zero = LoadModule("/dev/zero", "");
  EXPECT_EQ(zero.status().message(), "/dev/zero is not a regular file");
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string d = dir != nullptr ? dir : "/tmp";
  absl::StatusOr<ir::IRModule> m = LoadModule(d, "");
  EXPECT_EQ(m.status().message(), d + " is a directory");
}

}  // namespace
}  // namespace kiln::script
