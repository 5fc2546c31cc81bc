// Client::Fetch and Client::Compile's fetch path against streams that break: a real kilnd cannot be
// made to drop a FetchArtifact stream halfway on demand, so this test serves the CompileService
// from an in-process gRPC server that does, on a loopback port. It checks that the client resumes
// from the bytes it already has, gives up after max_attempts breaks without progress, and rejects
// chunks with gaps and bytes that do not hash to the digest; and that a retried UNAVAILABLE waits
// as long as the server's RetryInfo asks.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "client/cpp/client.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/cache/sha256.h"

namespace kiln {
namespace {

constexpr size_t kChunk = 64 << 10;

std::string Blob(size_t n) {
  std::string b(n, '\0');
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<char>((i * 2654435761u) >> 13);
  return b;
}

// Serves one blob by digest. Each FetchArtifact call takes the next entry of `breaks`: the stream
// fails with UNAVAILABLE after sending that many more bytes (none left: the call completes).
class DroppingService final : public v1::CompileService::Service {
 public:
  DroppingService(std::string blob, std::string served_digest)
      : blob_(std::move(blob)), digest_(std::move(served_digest)) {}

  void set_breaks(std::vector<size_t> breaks) { breaks_ = std::move(breaks); }
  void set_gap() { gap_ = true; }
  std::vector<uint64_t> offsets() {
    std::lock_guard<std::mutex> l(mu_);
    return offsets_;
  }

  grpc::Status Compile(grpc::ServerContext*, const v1::CompileRequest*, v1::CompileResponse* r) override {
    r->set_digest(digest_);
    r->mutable_metadata()->set_size(blob_.size());
    r->set_cache(v1::CACHE_DISK);
    return grpc::Status::OK;  // too large to inline: the client must fetch
  }

  // The first call answers UNAVAILABLE asking for a 300 ms wait (as a draining kilnd does).
  grpc::Status Check(grpc::ServerContext*, const v1::CheckRequest*, v1::CheckResponse*) override {
    std::lock_guard<std::mutex> l(mu_);
    check_times_.push_back(absl::Now());
    if (check_times_.size() > 1) return grpc::Status::OK;
    v1::RetryInfo info;
    info.mutable_retry_delay()->set_nanos(300000000);
    v1::RpcStatus details;
    details.set_code(grpc::StatusCode::UNAVAILABLE);
    google::protobuf::Any* any = details.add_details();
    any->set_type_url("type.googleapis.com/google.rpc.RetryInfo");
    any->set_value(info.SerializeAsString());
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "draining", details.SerializeAsString());
  }
  std::vector<absl::Time> check_times() {
    std::lock_guard<std::mutex> l(mu_);
    return check_times_;
  }

  grpc::Status FetchArtifact(grpc::ServerContext*, const v1::FetchArtifactRequest* req,
                             grpc::ServerWriter<v1::ArtifactChunk>* writer) override {
    size_t budget = std::string::npos;
    {
      std::lock_guard<std::mutex> l(mu_);
      offsets_.push_back(req->offset());
      if (call_ < breaks_.size()) budget = breaks_[call_];
      ++call_;
    }
    if (req->digest() != digest_) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such digest");
    size_t sent = 0;
    for (size_t off = req->offset(); off < blob_.size(); off += kChunk) {
      if (sent >= budget) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection dropped");
      v1::ArtifactChunk c;
      c.set_offset(gap_ && off > 0 ? off + 1 : off);
      c.set_total_size(blob_.size());
      c.set_data(blob_.substr(off, kChunk));
      sent += c.data().size();
      writer->Write(c);
    }
    return grpc::Status::OK;
  }

 private:
  std::string blob_, digest_;
  std::vector<size_t> breaks_;
  bool gap_ = false;
  std::mutex mu_;
  size_t call_ = 0;
  std::vector<uint64_t> offsets_;
  std::vector<absl::Time> check_times_;
};

class FetchTest : public ::testing::Test {
 protected:
  void Serve(std::string served_digest) {
    service_ = std::make_unique<DroppingService>(blob_, std::move(served_digest));
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    b.RegisterService(service_.get());
    server_ = b.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ClientOptions o;
    o.address = "127.0.0.1:" + std::to_string(port);
    o.retry.max_attempts = 3;
    o.retry.initial_backoff = absl::Milliseconds(1);
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(o);
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = std::move(*c);
  }
  void TearDown() override {
    if (server_) server_->Shutdown();
  }

  std::string blob_ = Blob(5 * kChunk + 123);
  std::string digest_ = server::ToHex(server::Sha256Digest(blob_));
  std::unique_ptr<DroppingService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(FetchTest, ResumesFromTheBytesReceived) {
  Serve(digest_);
  // Two chunks, then a break; one more chunk, then a break; then the rest.
  service_->set_breaks({2 * kChunk, kChunk});
  absl::StatusOr<std::string> got = client_->Fetch(digest_);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, blob_);
  EXPECT_EQ(service_->offsets(), (std::vector<uint64_t>{0, 2 * kChunk, 3 * kChunk}));
}

TEST_F(FetchTest, BreaksWithoutProgressExhaustTheAttempts) {
  Serve(digest_);
  service_->set_breaks({kChunk, 0, 0, 0});  // progress, then three breaks without any
  absl::StatusOr<std::string> got = client_->Fetch(digest_);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable) << got.status();
  // The first break made progress; after it, max_attempts (3) calls in a row made none.
  EXPECT_EQ(service_->offsets(), (std::vector<uint64_t>{0, kChunk, kChunk, kChunk}));
}

TEST_F(FetchTest, CompileFetchesWhatDidNotComeInline) {
  Serve(digest_);
  service_->set_breaks({3 * kChunk});
  absl::StatusOr<CompileResult> r = client_->Compile(v1::CompileRequest());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->fetched);
  EXPECT_EQ(r->executable, blob_);
  EXPECT_EQ(r->response.cache(), v1::CACHE_DISK);
}

TEST_F(FetchTest, BytesThatDoNotHashToTheDigestAreDataLoss) {
  std::string other(64, 'a');
  Serve(other);  // serves blob_ under another digest
  absl::StatusOr<std::string> got = client_->Fetch(other);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << got.status();
  EXPECT_EQ(client_->Compile(v1::CompileRequest()).status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(FetchTest, AGapBetweenChunksIsDataLoss) {
  Serve(digest_);
  service_->set_gap();
  absl::StatusOr<std::string> got = client_->Fetch(digest_);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << got.status();
  EXPECT_NE(got.status().message().find("offset"), absl::string_view::npos);
}

TEST_F(FetchTest, NotFoundIsNotRetried) {
  Serve(digest_);
  absl::StatusOr<std::string> got = client_->Fetch(std::string(64, 'b'));
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(got.status().message(), "no such digest");
  EXPECT_EQ(service_->offsets().size(), 1u);
}

TEST_F(FetchTest, UnavailableWaitsAsLongAsTheServerAsks) {
  Serve(digest_);
  // The policy's backoff is 1 ms; the server asked for 300 ms.
  absl::StatusOr<v1::CheckResponse> r = client_->Check(v1::CheckRequest());
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<absl::Time> t = service_->check_times();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_GE(t[1] - t[0], absl::Milliseconds(300));
}

}  // namespace
}  // namespace kiln
