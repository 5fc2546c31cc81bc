#include "runtime/agent/call_recorder.h"

#include "gtest/gtest.h"
#include "runtime/tensor.h"

namespace kiln::agent {
namespace {

using vm::InstrumentAction;
using vm::Value;

TEST(CallRecorderTest, RecordsNestedCallsWithDepthArgsAndTime) {
  CallRecorder r(/*trace=*/true, {}, 0);
  Value x = Value::Tensor(*runtime::Tensor::Empty({4, 8}, DLDataType{kDLFloat, 32, 1}));
  r.Begin();
  EXPECT_EQ(r.OnCall("main_inner", true, {x, Value::Int(3)}), InstrumentAction::kNoOp);
  EXPECT_EQ(r.OnCall("add", true, {x, x, x}), InstrumentAction::kNoOp);
  EXPECT_EQ(r.OnCall("add", false, {}), InstrumentAction::kNoOp);
  EXPECT_EQ(r.OnCall("main_inner", false, {}), InstrumentAction::kNoOp);
  kiln::v1::InstrumentTrace t = r.Finish();
  ASSERT_EQ(t.records_size(), 2);
  EXPECT_EQ(t.records(0).callee(), "main_inner");
  EXPECT_EQ(t.records(0).depth(), 0u);
  ASSERT_EQ(t.records(0).args_size(), 2);
  EXPECT_EQ(t.records(0).args(0), "float32[4, 8]");
  EXPECT_EQ(t.records(0).args(1), "int 3");
  EXPECT_EQ(t.records(1).callee(), "add");
  EXPECT_EQ(t.records(1).depth(), 1u);
  // The outer call's time includes the inner one's.
  EXPECT_GE(t.records(0).elapsed_ns(), t.records(1).elapsed_ns());
  EXPECT_EQ(t.dropped(), 0u);
  // Outside Begin/Finish (time_evaluator) nothing is recorded.
  r.OnCall("add", true, {});
  r.OnCall("add", false, {});
  EXPECT_EQ(r.Finish().records_size(), 0);
}

TEST(CallRecorderTest, SkipsNamedCalleesAndRecordsThemAsSkipped) {
  CallRecorder r(/*trace=*/true, {"slow"}, 0);
  r.Begin();
  EXPECT_EQ(r.OnCall("slow", true, {}), InstrumentAction::kSkipRun);
  EXPECT_EQ(r.OnCall("fast", true, {}), InstrumentAction::kNoOp);
  r.OnCall("fast", false, {});
  kiln::v1::InstrumentTrace t = r.Finish();
  ASSERT_EQ(t.records_size(), 2);
  EXPECT_TRUE(t.records(0).skipped());
  EXPECT_EQ(t.records(0).elapsed_ns(), 0u);
  EXPECT_EQ(t.records(1).depth(), 0u);  // the skipped call did not nest
  // Skip without tracing: still skipped, nothing recorded; outside a traced call too.
  CallRecorder skip_only(/*trace=*/false, {"slow"}, 0);
  skip_only.Begin();
  EXPECT_EQ(skip_only.OnCall("slow", true, {}), InstrumentAction::kSkipRun);
  EXPECT_EQ(skip_only.Finish().records_size(), 0);
  EXPECT_EQ(skip_only.OnCall("slow", true, {}), InstrumentAction::kSkipRun);
}

TEST(CallRecorderTest, KeepsTheFirstMaxRecordsAndCountsTheRest) {
  CallRecorder r(/*trace=*/true, {}, 2);
  r.Begin();
  for (int i = 0; i < 5; ++i) {
    r.OnCall("k", true, {});
    r.OnCall("k", false, {});
  }
  kiln::v1::InstrumentTrace t = r.Finish();
  EXPECT_EQ(t.records_size(), 2);
  EXPECT_EQ(t.dropped(), 3u);
  // A call that failed half-way (no after-run) leaves nothing behind for the next one.
  r.Begin();
  r.OnCall("fails", true, {});
  r.Finish();
  r.Begin();
  r.OnCall("k", true, {});
  EXPECT_EQ(r.Finish().records(0).depth(), 0u);
}

}  // namespace
}  // namespace kiln::agent
