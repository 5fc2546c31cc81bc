// kiln::Client without a kilnd: the backoff schedule, decoding the error details a server sends
// (diagnostics, retry info), rendering diagnostics as the CLI does, option checks, and retries of
// UNAVAILABLE against a port nobody listens on. client_kilnd_test.sh covers the calls themselves.
#include "client/cpp/client.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(BackoffDelayTest, DoublesUpToTheCapWithoutJitter) {
  RetryPolicy p;
  p.initial_backoff = absl::Milliseconds(100);
  p.max_backoff = absl::Milliseconds(1000);
  p.multiplier = 2.0;
  p.jitter = 0.0;
  EXPECT_EQ(BackoffDelay(p, 1, 0.7), absl::Milliseconds(100));
  EXPECT_EQ(BackoffDelay(p, 2, 0.7), absl::Milliseconds(200));
  EXPECT_EQ(BackoffDelay(p, 3, 0.7), absl::Milliseconds(400));
  EXPECT_EQ(BackoffDelay(p, 4, 0.7), absl::Milliseconds(800));
  EXPECT_EQ(BackoffDelay(p, 5, 0.7), absl::Milliseconds(1000));
  EXPECT_EQ(BackoffDelay(p, 30, 0.7), absl::Milliseconds(1000));
}

TEST(BackoffDelayTest, JitterSpreadsAroundTheBase) {
  RetryPolicy p;
  p.initial_backoff = absl::Milliseconds(100);
  p.multiplier = 3.0;
  p.jitter = 0.5;
  // Retry 2: base 300 ms, spread over [150, 450] ms by u.
  EXPECT_EQ(BackoffDelay(p, 2, 0.0), absl::Milliseconds(150));
  EXPECT_EQ(BackoffDelay(p, 2, 0.5), absl::Milliseconds(300));
  EXPECT_NEAR(absl::ToDoubleMilliseconds(BackoffDelay(p, 2, 0.999)), 450, 1);
  // Out-of-range jitter and u are clamped, never negative.
  p.jitter = 7;
  EXPECT_GE(BackoffDelay(p, 1, -3), absl::ZeroDuration());
  EXPECT_LE(BackoffDelay(p, 1, 9), absl::Milliseconds(200));
}

grpc::Status ServerError(grpc::StatusCode code, const std::string& message, const v1::RpcStatus& details) {
  return grpc::Status(code, message, details.SerializeAsString());
}

TEST(FromGrpcStatusTest, KeepsCodeMessageAndDiagnostics) {
  v1::Diagnostics diags;
  v1::Diagnostic* d = diags.add_diagnostics();
  d->set_severity(v1::SEVERITY_ERROR);
  d->set_file("model.py");
  d->set_line(3);
  d->set_col(9);
  d->set_message("unknown op R.foo");
  d->set_excerpt("    y = R.foo(x)\n        ^~~~~");
  v1::Diagnostic* w = diags.add_diagnostics();
  w->set_severity(v1::SEVERITY_WARNING);
  w->set_message("no location");
  v1::RpcStatus rpc;
  rpc.set_code(3);
  rpc.set_message("model.py:3:9: error: unknown op R.foo");
  rpc.add_details()->PackFrom(diags);

  absl::Status st = FromGrpcStatus(ServerError(grpc::StatusCode::INVALID_ARGUMENT, rpc.message(), rpc));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "model.py:3:9: error: unknown op R.foo");
  std::vector<v1::Diagnostic> back = DiagnosticsOf(st);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].line(), 3);
  EXPECT_EQ(back[0].col(), 9);
  EXPECT_FALSE(HasRetryInfo(st));
  EXPECT_EQ(RenderError(st),
            "model.py:3:9: error: unknown op R.foo\n"
            "    y = R.foo(x)\n"
            "        ^~~~~\n"
            "warning: no location\n");
}

TEST(FromGrpcStatusTest, FindsRetryInfo) {
  // Packed as kilnd packs it: kiln.v1.RetryInfo under google.rpc.RetryInfo's type URL.
  v1::RetryInfo info;
  info.mutable_retry_delay()->set_seconds(1);
  info.mutable_retry_delay()->set_nanos(250000000);
  v1::RpcStatus rpc;
  rpc.set_code(8);
  google::protobuf::Any* any = rpc.add_details();
  any->set_type_url("type.googleapis.com/google.rpc.RetryInfo");
  any->set_value(info.SerializeAsString());
  absl::Status st = FromGrpcStatus(ServerError(grpc::StatusCode::RESOURCE_EXHAUSTED, "queue full", rpc));
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(HasRetryInfo(st));
  EXPECT_EQ(RetryDelayOf(st), absl::Milliseconds(1250));
  EXPECT_TRUE(DiagnosticsOf(st).empty());
  EXPECT_EQ(RenderError(st), "RESOURCE_EXHAUSTED: queue full\n");
}

TEST(FromGrpcStatusTest, NoOrUnparsableDetails) {
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
  absl::Status plain = FromGrpcStatus(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad token"));
  EXPECT_EQ(plain.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(DiagnosticsOf(plain).empty());
  EXPECT_EQ(RenderError(plain), "UNAUTHENTICATED: bad token\n");
  EXPECT_FALSE(HasRetryInfo(plain));
  EXPECT_EQ(RetryDelayOf(plain), absl::nullopt);
  absl::Status garbage = FromGrpcStatus(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "x", "\xff\xff\xff"));
  EXPECT_EQ(garbage.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(DiagnosticsOf(garbage).empty());
}

TEST(RenderDiagnosticTest, LikeTheLocalCli) {
  v1::Diagnostic d;
  d.set_file("a.py");
  d.set_line(2);
  d.set_col(5);
  d.set_message("expected ':'");
  EXPECT_EQ(RenderDiagnostic(d), "a.py:2:5: error: expected ':'\n");
  d.set_excerpt("    def f(x)\n        ^\n");  // a trailing newline is not doubled
  EXPECT_EQ(RenderDiagnostic(d), "a.py:2:5: error: expected ':'\n    def f(x)\n        ^\n");
  v1::Diagnostic note;
  note.set_severity(v1::SEVERITY_NOTE);
  note.set_file("<input>");
  note.set_message("bad IR");
  EXPECT_EQ(RenderDiagnostic(note), "<input>: note: bad IR\n");
}

TEST(CacheTierNameTest, Names) {
  EXPECT_STREQ(CacheTierName(v1::CACHE_MEMORY), "memory");
  EXPECT_STREQ(CacheTierName(v1::CACHE_DISK), "disk");
  EXPECT_STREQ(CacheTierName(v1::CACHE_REDIS), "redis");
  EXPECT_STREQ(CacheTierName(v1::CACHE_MISS), "miss");
}

TEST(ClientCreateTest, ChecksOptions) {
  ClientOptions o;
  EXPECT_EQ(Client::Create(o).status().code(), absl::StatusCode::kInvalidArgument);
  o.address = "127.0.0.1:1";
  o.client_cert_path = "/nonexistent/cert.pem";
  EXPECT_EQ(Client::Create(o).status().code(), absl::StatusCode::kInvalidArgument);  // no key
  o.client_key_path = "/nonexistent/key.pem";
  EXPECT_EQ(Client::Create(o).status().code(), absl::StatusCode::kInvalidArgument);  // no CA
  o.root_cert_path = "/nonexistent/ca.pem";
  absl::Status missing = Client::Create(o).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("/nonexistent/ca.pem"), absl::string_view::npos);
  ClientOptions none;
  none.address = "127.0.0.1:1";
  none.retry.max_attempts = 0;
  EXPECT_EQ(Client::Create(none).status().code(), absl::StatusCode::kInvalidArgument);
}

// A loopback port that was free a moment ago: connecting to it is refused.
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(ClientRetryTest, UnavailableIsRetriedWithBackoff) {
  ClientOptions o;
  o.address = "127.0.0.1:" + std::to_string(ClosedPort());
  o.deadline = absl::Seconds(5);
  o.retry.max_attempts = 3;
  o.retry.initial_backoff = absl::Milliseconds(150);
  o.retry.multiplier = 2.0;
  o.retry.jitter = 0.0;
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Create(o);
  ASSERT_TRUE(client.ok()) << client.status();
  absl::Time start = absl::Now();
  absl::StatusOr<v1::ListTargetsResponse> r = (*client)->ListTargets();
  absl::Duration took = absl::Now() - start;
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable) << r.status();
  // Two retries: 150 ms + 300 ms of backoff, then the third attempt's error is returned.
  EXPECT_GE(took, absl::Milliseconds(450));
  EXPECT_LT(took, absl::Seconds(4));

  o.retry.max_attempts = 1;
  client = Client::Create(o);
  ASSERT_TRUE(client.ok());
  start = absl::Now();
  EXPECT_EQ((*client)->Stat().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(450));
}

}  // namespace
}  // namespace kiln
