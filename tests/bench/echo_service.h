// kiln.bench.Echo (echo.proto): the raw gRPC peer of the RPC benchmarks.
#ifndef KILN_TESTS_BENCH_ECHO_SERVICE_H_
#define KILN_TESTS_BENCH_ECHO_SERVICE_H_

#include "tests/bench/echo.grpc.pb.h"

namespace kiln::bench {

class EchoService final : public Echo::Service {
 public:
  grpc::Status Echo(grpc::ServerContext* ctx, const EchoRequest* request, EchoReply* reply) override;
  grpc::Status Sink(grpc::ServerContext* ctx, grpc::ServerReader<EchoRequest>* reader, SinkReply* reply) override;
};

}  // namespace kiln::bench

#endif  // KILN_TESTS_BENCH_ECHO_SERVICE_H_
