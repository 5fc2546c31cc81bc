#include "tests/bench/echo_service.h"

namespace kiln::bench {

grpc::Status EchoService::Echo(grpc::ServerContext*, const EchoRequest* request, EchoReply* reply) {
  reply->mutable_payload()->assign(request->reply_bytes(), 'x');
  return grpc::Status::OK;
}

grpc::Status EchoService::Sink(grpc::ServerContext*, grpc::ServerReader<EchoRequest>* reader, SinkReply* reply) {
  EchoRequest chunk;
  uint64_t bytes = 0;
  while (reader->Read(&chunk)) bytes += chunk.payload().size();
  reply->set_bytes(bytes);
  return grpc::Status::OK;
}

}  // namespace kiln::bench
