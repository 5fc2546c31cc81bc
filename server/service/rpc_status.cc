#include "server/service/rpc_status.h"

namespace kiln::server {

v1::Diagnostic ToProto(const ir::Diagnostic& d, const std::string& source, const std::string& file) {
  v1::Diagnostic out;
  switch (d.severity) {
    case ir::Severity::kError: out.set_severity(v1::SEVERITY_ERROR); break;
    case ir::Severity::kWarning: out.set_severity(v1::SEVERITY_WARNING); break;
    case ir::Severity::kNote: out.set_severity(v1::SEVERITY_NOTE); break;
  }
  out.set_file(d.span.source_name().empty() ? file : d.span.source_name());
  out.set_line(d.span.line);
  out.set_col(d.span.column);
  out.set_end_line(d.span.end_line);
  out.set_end_col(d.span.end_column);
  out.set_message(d.message);
  if (d.span.defined() && !source.empty()) {
    // Render gives "file:l:c: error: msg\n<line>\n<caret>\n": the excerpt is what follows the
    // first line.
    std::string rendered = ir::Render(d, source);
    size_t nl = rendered.find('\n');
    if (nl != std::string::npos) out.set_excerpt(rendered.substr(nl + 1));
  }
  return out;
}

grpc::Status ToGrpcStatus(const absl::Status& status, const v1::Diagnostics& diagnostics, absl::Duration retry_after) {
  if (status.ok()) return grpc::Status::OK;
  auto code = static_cast<grpc::StatusCode>(status.code());
  std::string message(status.message());
  v1::RpcStatus details;
  details.set_code(static_cast<int>(code));
  details.set_message(message);
  if (code == grpc::StatusCode::INVALID_ARGUMENT) {
    v1::Diagnostics errors;
    for (const v1::Diagnostic& d : diagnostics.diagnostics()) {
      if (d.severity() == v1::SEVERITY_ERROR) *errors.add_diagnostics() = d;
    }
    if (errors.diagnostics().empty()) {
      v1::Diagnostic* d = errors.add_diagnostics();
      d->set_severity(v1::SEVERITY_ERROR);
      d->set_message(message);
    }
    details.add_details()->PackFrom(errors);
  } else if (code == grpc::StatusCode::RESOURCE_EXHAUSTED || code == grpc::StatusCode::UNAVAILABLE) {
    v1::RetryInfo retry;
    int64_t nanos = absl::ToInt64Nanoseconds(retry_after);
    retry.mutable_retry_delay()->set_seconds(nanos / 1000000000);
    retry.mutable_retry_delay()->set_nanos(static_cast<int32_t>(nanos % 1000000000));
    // google.rpc.RetryInfo's type URL, so generic gRPC clients recognize it.
    google::protobuf::Any* any = details.add_details();
    any->set_type_url("type.googleapis.com/google.rpc.RetryInfo");
    any->set_value(retry.SerializeAsString());
  }
  // Keep the status line short: the full diagnostics travel in the details.
  if (message.size() > 4096) message = message.substr(0, 4096) + "...";
  return grpc::Status(code, message, details.SerializeAsString());
}

}  // namespace kiln::server
