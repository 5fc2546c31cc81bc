// kiln::Client against a real kilnd on a loopback port (started by the test, with a token file):
// Compile (miss then memory hit, bytes equal to a local build), a large executable through
// FetchArtifact, Fetch by digest and NOT_FOUND, Check/Format, INVALID_ARGUMENT diagnostics decoded
// and rendered, Stat with the admin token only, ListTargets, and wrong or missing tokens.
#include <fstream>
#include <memory>
#include <string>

#include "client/cpp/client.h"
#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "server/cache/sha256.h"
#include "server/testing/kilnd_process.h"
#include "tests/load/load.h"

namespace kiln {
namespace {

using server::testing::KilndProcess;

constexpr char kCompileToken[] = "c0mpile-token-0123456789";
constexpr char kAdminToken[] = "adm1n-token-0123456789";

std::string LocalBuild(const std::string& source) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "m.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<vm::Executable> exec = driver::BuildModuleExecutable(script::AsModule(*parsed), "llvm");
  EXPECT_TRUE(exec.ok()) << exec.status();
  return exec.ok() ? exec->Serialize() : "";
}

class ClientKilndTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = server::testing::MakeTempDir("client_kilnd");
    std::string tokens = dir + "/tokens";
    std::ofstream(tokens) << kCompileToken << " ci compile\n" << kAdminToken << " ops compile,admin\n";
    absl::StatusOr<KilndProcess> k = KilndProcess::Start(
        server::testing::RunfilePath("server/kilnd"),
        {"--cache-dir", dir + "/cache", "--workers-per-target", "1", "--token-file", tokens});
    ASSERT_TRUE(k.ok()) << k.status();
    kilnd_ = new KilndProcess(std::move(*k));
  }
  static void TearDownTestSuite() {
    delete kilnd_;
    kilnd_ = nullptr;
  }

  std::unique_ptr<Client> Connect(const std::string& token) {
    ClientOptions o;
    o.address = kilnd_->address();
    o.token = token;
    o.deadline = absl::Seconds(120);
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(o);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? std::move(*c) : nullptr;
  }

  static v1::CompileRequest Request(const std::string& source) {
    v1::CompileRequest r;
    r.set_source(source);
    r.set_filename("m.py");
    r.set_target("llvm");
    return r;
  }

  static KilndProcess* kilnd_;
};

KilndProcess* ClientKilndTest::kilnd_ = nullptr;

TEST_F(ClientKilndTest, CompileMissThenHitWithTheLocalBytes) {
  ASSERT_NE(kilnd_, nullptr);
  std::unique_ptr<Client> c = Connect(kCompileToken);
  std::string source = load::MissSource(4242, 7);  // not compiled by any other test
  absl::StatusOr<CompileResult> first = c->Compile(Request(source));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->response.cache(), v1::CACHE_MISS);
  EXPECT_FALSE(first->fetched);
  EXPECT_TRUE(first->response.executable().empty());  // moved into CompileResult::executable
  EXPECT_EQ(first->executable, LocalBuild(source));
  EXPECT_EQ(first->response.digest(), server::ToHex(server::Sha256Digest(first->executable)));
  absl::StatusOr<CompileResult> again = c->Compile(Request(source));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->response.cache(), v1::CACHE_MEMORY);
  EXPECT_EQ(again->executable, first->executable);

  absl::StatusOr<std::string> fetched = c->Fetch(first->response.digest());
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(*fetched, first->executable);
  EXPECT_EQ(c->Fetch(std::string(64, '0')).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ClientKilndTest, LargeExecutableComesThroughFetchArtifact) {
  ASSERT_NE(kilnd_, nullptr);
  std::unique_ptr<Client> c = Connect(kCompileToken);
  absl::StatusOr<CompileResult> r = c->Compile(Request(load::LargeSource()));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->fetched);
  EXPECT_GT(r->executable.size(), size_t{1} << 20);
  EXPECT_EQ(r->executable.size(), r->response.metadata().size());
  EXPECT_EQ(r->executable, LocalBuild(load::LargeSource()));
}

TEST_F(ClientKilndTest, InvalidSourceDiagnostics) {
  ASSERT_NE(kilnd_, nullptr);
  std::unique_ptr<Client> c = Connect(kCompileToken);
  for (uint64_t n : {0, 1}) {
    v1::CompileRequest req = Request(load::InvalidSource(n));
    req.set_filename("bad.py");
    absl::StatusOr<CompileResult> r = c->Compile(req);
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    std::vector<v1::Diagnostic> diags = DiagnosticsOf(r.status());
    ASSERT_FALSE(diags.empty());
    EXPECT_EQ(diags[0].file(), "bad.py");
    EXPECT_GT(diags[0].line(), 0);
    // What the local CLI prints for the same source.
    ir::DiagnosticList local;
    ASSERT_FALSE(script::ParseScript(load::InvalidSource(n), "bad.py", &local).ok());
    std::string rendered = RenderError(r.status());
    EXPECT_EQ(rendered.substr(0, rendered.find('\n')),
              ir::Render(local.items()[0], "").substr(0, ir::Render(local.items()[0], "").find('\n')));
    EXPECT_NE(rendered.find('^'), std::string::npos) << rendered;  // the excerpt's caret

    v1::CheckRequest check;
    check.set_source(load::InvalidSource(n));
    check.set_filename("bad.py");
    absl::StatusOr<v1::CheckResponse> cr = c->Check(check);
    EXPECT_EQ(cr.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(RenderError(cr.status()), rendered);
  }
}

TEST_F(ClientKilndTest, CheckAndFormat) {
  ASSERT_NE(kilnd_, nullptr);
  std::unique_ptr<Client> c = Connect(kCompileToken);
  v1::CheckRequest check;
  check.set_source(load::HitSource());
  EXPECT_TRUE(c->Check(check).ok());
  v1::FormatRequest fmt;
  fmt.set_source(load::HitSource());
  absl::StatusOr<v1::FormatResponse> f = c->Format(fmt);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_NE(f->text().find("def main("), std::string::npos) << f->text();
  // The canonical text is a fixed point.
  fmt.set_source(f->text());
  absl::StatusOr<v1::FormatResponse> again = c->Format(fmt);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->text(), f->text());
}

TEST_F(ClientKilndTest, StatNeedsAdminListTargetsDoesNot) {
  ASSERT_NE(kilnd_, nullptr);
  EXPECT_EQ(Connect(kCompileToken)->Stat().status().code(), absl::StatusCode::kPermissionDenied);
  absl::StatusOr<v1::StatResponse> s = Connect(kAdminToken)->Stat();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->server_version().empty());
  absl::StatusOr<v1::ListTargetsResponse> t = Connect(kCompileToken)->ListTargets();
  ASSERT_TRUE(t.ok()) << t.status();
  bool llvm = false;
  for (const v1::TargetInfo& i : t->targets()) llvm |= i.kind() == "llvm";
  EXPECT_TRUE(llvm);
}

TEST_F(ClientKilndTest, WrongOrMissingToken) {
  ASSERT_NE(kilnd_, nullptr);
  absl::Status wrong = Connect("not-a-token-0123456789")->Compile(Request(load::HitSource())).status();
  EXPECT_EQ(wrong.code(), absl::StatusCode::kUnauthenticated) << wrong;
  absl::Status none = Connect("")->ListTargets().status();
  EXPECT_EQ(none.code(), absl::StatusCode::kUnauthenticated) << none;
}

}  // namespace
}  // namespace kiln
