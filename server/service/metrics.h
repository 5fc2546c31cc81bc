// kilnd's Prometheus metrics: counter and histogram families rendered in the text exposition
// format (version 0.0.4), and the HTTP endpoint that serves them on `--metrics-listen` (civetweb).
//
// Families are created once, up front, and are thread-safe; gauges that mirror other components'
// state (cache tiers, pools) are appended at scrape time with AppendSample, so they are never stale.
#ifndef KILN_SERVER_SERVICE_METRICS_H_
#define KILN_SERVER_SERVICE_METRICS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

struct mg_context;
struct mg_connection;

namespace kiln::server {

class CounterFamily {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names);
  // `label_values` has one value per label name.
  void Inc(const std::vector<std::string>& label_values, double by = 1);
  double Value(const std::vector<std::string>& label_values) const;
  void Render(std::string* out) const;

 private:
  const std::string name_, help_;
  const std::vector<std::string> label_names_;
  mutable absl::Mutex mu_;
  std::map<std::vector<std::string>, double> values_ ABSL_GUARDED_BY(mu_);
};

class HistogramFamily {
 public:
  // `bounds`: the buckets' upper bounds, increasing (+Inf is implied).
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names, std::vector<double> bounds);
  void Observe(const std::vector<std::string>& label_values, double value);
  uint64_t Count(const std::vector<std::string>& label_values) const;
  void Render(std::string* out) const;

 private:
  struct Series {
    std::vector<uint64_t> buckets;  // per bound, not cumulative
    uint64_t count = 0;
    double sum = 0;
  };
  const std::string name_, help_;
  const std::vector<std::string> label_names_;
  const std::vector<double> bounds_;
  mutable absl::Mutex mu_;
  std::map<std::vector<std::string>, Series> series_ ABSL_GUARDED_BY(mu_);
};

// `name{l1="v1",...} value`, after its HELP and TYPE ("counter", "gauge") lines when
// `with_header` (once per family); label values are escaped. For values another component counts.
void AppendSample(std::string* out, absl::string_view name, absl::string_view type, absl::string_view help,
                  const std::vector<std::pair<std::string, std::string>>& labels, double value,
                  bool with_header = true);

// Serves GET /metrics with `render()`'s text; other paths get 404. Stops in the destructor.
class MetricsHttpServer {
 public:
  // `listen` is HOST:PORT (port 0 picks a free one: see port()).
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(const std::string& listen,
                                                                   std::function<std::string()> render);
  ~MetricsHttpServer();
  int port() const { return port_; }

 private:
  explicit MetricsHttpServer(std::function<std::string()> render) : render_(std::move(render)) {}
  static int Handle(::mg_connection* conn, void* self);

  const std::function<std::string()> render_;
  mg_context* ctx_ = nullptr;
  int port_ = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_METRICS_H_
