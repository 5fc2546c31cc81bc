// The compile API's shape, as clients rely on it: the methods and which of them stream, and the
// error-details envelope that carries diagnostics.
#include <string>

#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "proto/compile.grpc.pb.h"
#include "proto/compile.pb.h"

namespace kiln::v1 {
namespace {

TEST(CompileProtoTest, ServiceMethodsAndStreaming) {
  // Linking compile.pb.cc registers the file in the generated pool.
  ASSERT_NE(CompileRequest::descriptor(), nullptr);
  const google::protobuf::ServiceDescriptor* s =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(CompileService::service_full_name());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->full_name(), "kiln.v1.CompileService");
  struct Expect {
    const char* name;
    bool client_streaming, server_streaming;
  };
  for (const Expect& e : {Expect{"Compile", false, false}, Expect{"CompileStream", false, true},
                          Expect{"FetchArtifact", false, true}, Expect{"Check", false, false},
                          Expect{"Format", false, false}, Expect{"Stat", false, false},
                          Expect{"ListTargets", false, false}, Expect{"InspectArtifact", false, false}}) {
    const google::protobuf::MethodDescriptor* m = s->FindMethodByName(e.name);
    ASSERT_NE(m, nullptr) << e.name;
    EXPECT_EQ(m->client_streaming(), e.client_streaming) << e.name;
    EXPECT_EQ(m->server_streaming(), e.server_streaming) << e.name;
  }
  EXPECT_EQ(s->method_count(), 8);
}

TEST(CompileProtoTest, DiagnosticsTravelInTheStatusDetails) {
  Diagnostics diags;
  Diagnostic* d = diags.add_diagnostics();
  d->set_severity(SEVERITY_ERROR);
  d->set_file("model.py");
  d->set_line(12);
  d->set_col(5);
  d->set_message("unknown op R.foo");
  d->set_excerpt("    y = R.foo(x)\n        ^");
  RpcStatus status;
  status.set_code(3);  // INVALID_ARGUMENT
  status.set_message("model.py:12:5: error: unknown op R.foo");
  status.add_details()->PackFrom(diags);
  EXPECT_EQ(status.details(0).type_url(), "type.googleapis.com/kiln.v1.Diagnostics");

  RpcStatus back;
  ASSERT_TRUE(back.ParseFromString(status.SerializeAsString()));
  Diagnostics unpacked;
  ASSERT_TRUE(back.details(0).UnpackTo(&unpacked));
  ASSERT_EQ(unpacked.diagnostics_size(), 1);
  EXPECT_EQ(unpacked.diagnostics(0).line(), 12);
  EXPECT_EQ(unpacked.diagnostics(0).excerpt(), "    y = R.foo(x)\n        ^");
}

// google.rpc.Status is {int32 code = 1; string message = 2; repeated Any details = 3}: RpcStatus
// must keep those numbers and types for standard clients to decode it.
TEST(CompileProtoTest, RpcStatusMatchesGoogleRpcStatusLayout) {
  const google::protobuf::Descriptor* d = RpcStatus::descriptor();
  ASSERT_EQ(d->field_count(), 3);
  EXPECT_EQ(d->FindFieldByNumber(1)->type(), google::protobuf::FieldDescriptor::TYPE_INT32);
  EXPECT_EQ(d->FindFieldByNumber(2)->type(), google::protobuf::FieldDescriptor::TYPE_STRING);
  const google::protobuf::FieldDescriptor* details = d->FindFieldByNumber(3);
  EXPECT_TRUE(details->is_repeated());
  EXPECT_EQ(details->message_type()->full_name(), "google.protobuf.Any");
}

TEST(CompileProtoTest, RequestCarriesSourceOrIrButNotBoth) {
  CompileRequest r;
  r.set_source("@I.ir_module\nclass M: ...");
  EXPECT_EQ(r.module_case(), CompileRequest::kSource);
  r.set_ir(std::string("KILNIR\0\1", 8));
  EXPECT_EQ(r.module_case(), CompileRequest::kIr);
  EXPECT_FALSE(r.has_source());
}

}  // namespace
}  // namespace kiln::v1
