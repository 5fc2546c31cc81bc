// absl::Status -> grpc::Status for kilnd's answers, with the structured details compile.proto
// promises: a kiln.v1.Diagnostics for INVALID_ARGUMENT, a RetryInfo for RESOURCE_EXHAUSTED and
// UNAVAILABLE, packed in a kiln.v1.RpcStatus (google.rpc.Status on the wire) that gRPC sends as
// the grpc-status-details-bin trailer.
#ifndef KILN_SERVER_SERVICE_RPC_STATUS_H_
#define KILN_SERVER_SERVICE_RPC_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "compiler/ir/diagnostic.h"
#include "grpcpp/grpcpp.h"
#include "proto/compile.pb.h"

namespace kiln::server {

// One diagnostic as the API reports it; `source` (the request's text, may be empty) gives the
// excerpt. `file` replaces the span's file name when the span has none.
v1::Diagnostic ToProto(const ir::Diagnostic& d, const std::string& source, const std::string& file);

// The grpc::Status of `status` (OK maps to OK). INVALID_ARGUMENT carries `diagnostics` (the errors
// among them; when there are none, one location-less diagnostic with the status message).
// RESOURCE_EXHAUSTED and UNAVAILABLE carry `retry_after`.
grpc::Status ToGrpcStatus(const absl::Status& status, const v1::Diagnostics& diagnostics = {},
                          absl::Duration retry_after = absl::Seconds(1));

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_RPC_STATUS_H_
