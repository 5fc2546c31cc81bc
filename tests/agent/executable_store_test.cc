#include "runtime/agent/executable_store.h"

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>

#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "proto/compile.grpc.pb.h"
#include "runtime/agent/digest.h"
#include "tests/agent/test_model.h"

namespace kiln::agent {
namespace {

// kilnd's FetchArtifact as compile.proto specifies it (chunks from `offset`, NOT_FOUND for an
// unknown digest), serving fixed bytes. `break_after_chunks` > 0 makes the first stream fail with
// UNAVAILABLE after that many chunks, as a dropped connection would.
class ArtifactServer final : public kiln::v1::CompileService::Service {
 public:
  std::map<std::string, std::string> artifacts;
  int break_after_chunks = 0;
  std::atomic<int> calls{0};
  std::atomic<uint64_t> last_offset{0};

  grpc::Status FetchArtifact(grpc::ServerContext*, const kiln::v1::FetchArtifactRequest* req,
                             grpc::ServerWriter<kiln::v1::ArtifactChunk>* writer) override {
    int call = calls++;
    last_offset = req->offset();
    auto it = artifacts.find(req->digest());
    if (it == artifacts.end()) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such artifact");
    const std::string& bytes = it->second;
    int sent = 0;
    for (uint64_t off = req->offset(); off < bytes.size(); off += 1000) {
      if (call == 0 && break_after_chunks > 0 && sent == break_after_chunks) {
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection dropped");
      }
      kiln::v1::ArtifactChunk c;
      c.set_offset(off);
      c.set_data(bytes.substr(off, 1000));
      c.set_total_size(bytes.size());
      writer->Write(c);
      ++sent;
    }
    return grpc::Status::OK;
  }
};

class ExecutableStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> exe = TestModelExecutable();
    ASSERT_TRUE(exe.ok()) << exe.status();
    exe_ = *exe;
    digest_ = Sha256Hex(exe_);
    static int n = 0;
    dir_ = std::string(std::getenv("TEST_TMPDIR")) + "/cache" + std::to_string(n++);
    mkdir(dir_.c_str(), 0755);
  }

  std::shared_ptr<grpc::Channel> StartKilnd() {
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    b.RegisterService(&kilnd_);
    server_ = b.BuildAndStart();
    return grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  }

  std::string exe_, digest_, dir_;
  ArtifactServer kilnd_;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(ExecutableStoreTest, UploadIsVerifiedSharedAndCachedOnDisk) {
  ExecutableStore store({dir_});
  absl::StatusOr<LoadedExecutable> up = store.Put(digest_, exe_);
  ASSERT_TRUE(up.ok()) << up.status();
  EXPECT_EQ(up->source, "upload");
  EXPECT_EQ(up->size, exe_.size());
  absl::StatusOr<LoadedExecutable> again = store.Get(digest_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->source, "memory");
  EXPECT_EQ(again->executable, up->executable);  // one deserialized copy while in use

  // A new store (a restarted agent) finds it on disk.
  ExecutableStore restarted({dir_});
  absl::StatusOr<LoadedExecutable> disk = restarted.Get(digest_);
  ASSERT_TRUE(disk.ok()) << disk.status();
  EXPECT_EQ(disk->source, "disk");
}

TEST_F(ExecutableStoreTest, RejectsWrongDigestCorruptionAndBadNames) {
  ExecutableStore store({dir_});
  std::string other = Sha256Hex("something else");
  EXPECT_NE(store.Put(other, exe_).status().message().find("not the requested"), std::string::npos);
  std::string corrupt = exe_;
  corrupt[corrupt.size() / 2] ^= 0x5a;
  absl::Status s = store.Put(Sha256Hex(corrupt), corrupt).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("does not load"), std::string::npos) << s;
  EXPECT_EQ(store.Get("../../etc/passwd").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Get(other).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ExecutableStoreTest, CorruptDiskFileIsReplacedFromKilnd) {
  std::ofstream(dir_ + "/" + digest_ + ".kx", std::ios::binary) << exe_.substr(0, exe_.size() - 1) << "X";
  kilnd_.artifacts[digest_] = exe_;
  ExecutableStore store({dir_, StartKilnd()});
  absl::StatusOr<LoadedExecutable> got = store.Get(digest_);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->source, "kilnd");
  ExecutableStore restarted({dir_});
  EXPECT_EQ(restarted.Get(digest_)->source, "disk");  // rewritten with the good bytes
}

TEST_F(ExecutableStoreTest, FetchResumesABrokenStream) {
  kilnd_.artifacts[digest_] = exe_;
  kilnd_.break_after_chunks = 3;
  ExecutableStore store({"", StartKilnd()});
  absl::StatusOr<LoadedExecutable> got = store.Get(digest_);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->source, "kilnd");
  EXPECT_EQ(kilnd_.calls.load(), 2);
  EXPECT_EQ(kilnd_.last_offset.load(), 3000u);  // the second call resumed
}

TEST_F(ExecutableStoreTest, KilndErrorsAreReported) {
  std::string corrupt = exe_;
  corrupt[100] ^= 1;
  kilnd_.artifacts[digest_] = corrupt;  // kilnd serving bytes that do not match their name
  ExecutableStore store({"", StartKilnd()});
  EXPECT_NE(store.Get(digest_).status().message().find("not the requested"), std::string::npos);
  EXPECT_EQ(store.Get(Sha256Hex("x")).status().code(), absl::StatusCode::kNotFound);

  ExecutableStoreOptions down;
  down.kilnd = grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials());
  ExecutableStore unreachable(down);
  EXPECT_EQ(unreachable.Get(digest_).status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace kiln::agent
