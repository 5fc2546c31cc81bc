#include "runtime/agent/call_recorder.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/tensor.h"

namespace kiln::agent {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

CallRecorder::CallRecorder(bool trace, std::set<std::string> skip, uint32_t max_records)
    : trace_mode_(trace), skip_(std::move(skip)), max_records_(max_records == 0 ? kDefaultMaxRecords : max_records) {}

std::string CallRecorder::DescribeArg(const vm::Value& v) {
  switch (v.kind()) {
    case vm::Value::Kind::kTensor: {
      const runtime::Tensor& t = v.as_tensor();
      return absl::StrCat(runtime::DTypeString(t.dtype()), "[", absl::StrJoin(t.shape(), ", "), "]");
    }
    case vm::Value::Kind::kInt:
    case vm::Value::Kind::kFloat:
    case vm::Value::Kind::kBool:
    case vm::Value::Kind::kDataType:
      return absl::StrCat(v.kind_name(), " ", v.DebugString());
    case vm::Value::Kind::kShape:
      return absl::StrCat("shape ", v.DebugString());
    case vm::Value::Kind::kTuple:
      return absl::StrCat("tuple of ", v.as_tuple().size());
    default:
      return v.kind_name();
  }
}

vm::InstrumentAction CallRecorder::OnCall(absl::string_view callee, bool before_run,
                                          absl::Span<const vm::Value> args) {
  if (!before_run) {
    if (!recording_ || open_.empty()) return vm::InstrumentAction::kNoOp;
    Open call = open_.back();
    open_.pop_back();
    if (call.record >= 0) trace_.mutable_records(call.record)->set_elapsed_ns(NowNs() - call.start_ns);
    return vm::InstrumentAction::kNoOp;
  }
  const bool skip = skip_.count(std::string(callee)) > 0;
  if (recording_) {
    int index = -1;
    if (static_cast<uint32_t>(trace_.records_size()) < max_records_) {
      index = trace_.records_size();
      kiln::v1::InstrumentRecord* r = trace_.add_records();
      r->set_callee(std::string(callee));
      r->set_depth(static_cast<uint32_t>(open_.size()));
      r->set_skipped(skip);
      for (const vm::Value& a : args) r->add_args(DescribeArg(a));
    } else {
      trace_.set_dropped(trace_.dropped() + 1);
    }
    // A skipped Call never reaches the after-run half.
    if (!skip) open_.push_back(Open{index, NowNs()});
  }
  return skip ? vm::InstrumentAction::kSkipRun : vm::InstrumentAction::kNoOp;
}

void CallRecorder::Begin() {
  trace_.Clear();
  open_.clear();
  recording_ = trace_mode_;
}

kiln::v1::InstrumentTrace CallRecorder::Finish() {
  recording_ = false;
  open_.clear();
  kiln::v1::InstrumentTrace out;
  out.Swap(&trace_);
  return out;
}

}  // namespace kiln::agent
