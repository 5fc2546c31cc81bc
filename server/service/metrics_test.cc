#include "server/service/metrics.h"


#include <string>

#include "gtest/gtest.h"
#include "server/testing/kilnd_process.h"

namespace kiln::server {
namespace {

TEST(MetricsTest, CountersRenderOneSamplePerLabelSet) {
  CounterFamily c("kiln_requests_total", "RPCs.", {"method", "code"});
  c.Inc({"Compile", "OK"});
  c.Inc({"Compile", "OK"});
  c.Inc({"Check", "INVALID_ARGUMENT"}, 3);
  std::string out;
  c.Render(&out);
  EXPECT_EQ(out,
            "# HELP kiln_requests_total RPCs.\n"
            "# TYPE kiln_requests_total counter\n"
            "kiln_requests_total{method=\"Check\",code=\"INVALID_ARGUMENT\"} 3\n"
            "kiln_requests_total{method=\"Compile\",code=\"OK\"} 2\n");
  EXPECT_EQ(c.Value({"Compile", "OK"}), 2);
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  HistogramFamily h("lat_seconds", "Latency.", {"m"}, {0.1, 1});
  h.Observe({"a"}, 0.05);
  h.Observe({"a"}, 0.5);
  h.Observe({"a"}, 7);
  std::string out;
  h.Render(&out);
  EXPECT_NE(out.find("lat_seconds_bucket{m=\"a\",le=\"0.10000000000000001\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("lat_seconds_bucket{m=\"a\",le=\"1\"} 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("lat_seconds_bucket{m=\"a\",le=\"+Inf\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("lat_seconds_sum{m=\"a\"} 7.5499999999999998\n"), std::string::npos) << out;
  EXPECT_NE(out.find("lat_seconds_count{m=\"a\"} 3\n"), std::string::npos) << out;
  EXPECT_EQ(h.Count({"a"}), 3u);
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  std::string out;
  AppendSample(&out, "g", "gauge", "G.", {{"target", "llvm \"x\"\\\n"}}, 1);
  EXPECT_NE(out.find("g{target=\"llvm \\\"x\\\"\\\\\\n\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("# TYPE g gauge\n"), std::string::npos);
}

TEST(MetricsTest, HttpEndpointServesMetricsAndRejectsOtherPaths) {
  int scrapes = 0;
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server =
      MetricsHttpServer::Start("127.0.0.1:0", [&] { return "kiln_up " + std::to_string(++scrapes) + "\n"; });
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_GT((*server)->port(), 0);
  std::string r = testing::HttpGet((*server)->port(), "/metrics");
  EXPECT_NE(r.find("200 OK"), std::string::npos) << r;
  EXPECT_NE(r.find("text/plain; version=0.0.4"), std::string::npos) << r;
  EXPECT_NE(r.find("\r\n\r\nkiln_up 1\n"), std::string::npos) << r;
  EXPECT_NE(testing::HttpGet((*server)->port(), "/metrics").find("kiln_up 2\n"), std::string::npos);
  EXPECT_NE(testing::HttpGet((*server)->port(), "/").find("404"), std::string::npos);
}

TEST(MetricsTest, HttpEndpointReportsABadAddress) {
  EXPECT_FALSE(MetricsHttpServer::Start("not-an-address:x", [] { return std::string(); }).ok());
}

}  // namespace
}  // namespace kiln::server
