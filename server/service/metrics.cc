#include "server/service/metrics.h"

#include <civetweb.h>

#include <cmath>

#include "absl/base/call_once.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kiln::server {
namespace {

std::string Escape(absl::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return absl::StrFormat("%.17g", v);
}

// `{a="x",b="y"}`, or "" without labels; `extra` (e.g. le="0.1") goes last.
std::string LabelSet(const std::vector<std::string>& names, const std::vector<std::string>& values,
                     const std::string& extra = "") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StrAppend(&out, out.empty() ? "" : ",", names[i], "=\"", Escape(values[i]), "\"");
  }
  if (!extra.empty()) absl::StrAppend(&out, out.empty() ? "" : ",", extra);
  return out.empty() ? "" : absl::StrCat("{", out, "}");
}

void Header(std::string* out, absl::string_view name, absl::string_view help, absl::string_view type) {
  absl::StrAppend(out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace

CounterFamily::CounterFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

void CounterFamily::Inc(const std::vector<std::string>& label_values, double by) {
  absl::MutexLock lock(&mu_);
  values_[label_values] += by;
}

double CounterFamily::Value(const std::vector<std::string>& label_values) const {
  absl::MutexLock lock(&mu_);
  auto it = values_.find(label_values);
  return it == values_.end() ? 0 : it->second;
}

void CounterFamily::Render(std::string* out) const {
  Header(out, name_, help_, "counter");
  absl::MutexLock lock(&mu_);
  for (const auto& [labels, v] : values_) absl::StrAppend(out, name_, LabelSet(label_names_, labels), " ", Number(v), "\n");
}

HistogramFamily::HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                                 std::vector<double> bounds)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)), bounds_(std::move(bounds)) {}

void HistogramFamily::Observe(const std::vector<std::string>& label_values, double value) {
  absl::MutexLock lock(&mu_);
  Series& s = series_[label_values];
  if (s.buckets.empty()) s.buckets.assign(bounds_.size(), 0);
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (value <= bounds_[i]) {
      ++s.buckets[i];
      break;
    }
  }
  ++s.count;
  s.sum += value;
}

uint64_t HistogramFamily::Count(const std::vector<std::string>& label_values) const {
  absl::MutexLock lock(&mu_);
  auto it = series_.find(label_values);
  return it == series_.end() ? 0 : it->second.count;
}

void HistogramFamily::Render(std::string* out) const {
  Header(out, name_, help_, "histogram");
  absl::MutexLock lock(&mu_);
  for (const auto& [labels, s] : series_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < bounds_.size(); ++i) {
      cumulative += s.buckets[i];
      absl::StrAppend(out, name_, "_bucket", LabelSet(label_names_, labels, absl::StrCat("le=\"", Number(bounds_[i]), "\"")),
                      " ", cumulative, "\n");
    }
    absl::StrAppend(out, name_, "_bucket", LabelSet(label_names_, labels, "le=\"+Inf\""), " ", s.count, "\n");
    absl::StrAppend(out, name_, "_sum", LabelSet(label_names_, labels), " ", Number(s.sum), "\n");
    absl::StrAppend(out, name_, "_count", LabelSet(label_names_, labels), " ", s.count, "\n");
  }
}

void AppendSample(std::string* out, absl::string_view name, absl::string_view type, absl::string_view help,
                  const std::vector<std::pair<std::string, std::string>>& labels, double value, bool with_header) {
  if (with_header) Header(out, name, help, type);
  std::vector<std::string> names, values;
  for (const auto& [k, v] : labels) names.push_back(k), values.push_back(v);
  absl::StrAppend(out, name, LabelSet(names, values), " ", Number(value), "\n");
}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(const std::string& listen,
                                                                           std::function<std::string()> render) {
  static absl::once_flag init;  // civetweb's process-wide setup; it holds no state of ours
  absl::call_once(init, [] { mg_init_library(0); });
  std::unique_ptr<MetricsHttpServer> server(new MetricsHttpServer(std::move(render)));
  const char* options[] = {"listening_ports", listen.c_str(), "num_threads", "2", nullptr};
  mg_callbacks callbacks{};
  server->ctx_ = mg_start(&callbacks, nullptr, options);
  if (server->ctx_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("metrics endpoint: cannot listen on ", listen));
  }
  mg_set_request_handler(server->ctx_, "/", &MetricsHttpServer::Handle, server.get());
  mg_server_port ports[1];
  if (mg_get_server_ports(server->ctx_, 1, ports) < 1) {
    return absl::InternalError("metrics endpoint: no listening port");
  }
  server->port_ = ports[0].port;
  return server;
}

MetricsHttpServer::~MetricsHttpServer() {
  if (ctx_ != nullptr) mg_stop(ctx_);
}

int MetricsHttpServer::Handle(::mg_connection* conn, void* self) {
  const mg_request_info* info = mg_get_request_info(conn);
  std::string uri = info->local_uri ? info->local_uri : "";
  if (uri != "/metrics") {
    mg_send_http_error(conn, 404, "%s", "not found: the metrics are at /metrics\n");
    return 404;
  }
  std::string body = static_cast<MetricsHttpServer*>(self)->render_();
  mg_printf(conn,
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: %zu\r\nConnection: close\r\n\r\n",
            body.size());
  mg_write(conn, body.data(), body.size());
  return 200;
}

}  // namespace kiln::server
