// The instrument kiln-agent installs in a session's VM for SetInstrument (proto/agent.proto): a
// client's callback cannot run across RPC, so the agent runs this fixed one. It records every Call
// (callee, wall time, argument types, nesting depth) while a call is being traced, and skips the
// callees the client named (TVM's SKIP_RUN).
//
// Not thread-safe: it lives in one session and runs under that session's mutex, as its VM does.
#ifndef KILN_RUNTIME_AGENT_CALL_RECORDER_H_
#define KILN_RUNTIME_AGENT_CALL_RECORDER_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/agent.pb.h"
#include "runtime/vm/value.h"
#include "runtime/vm/vm.h"

namespace kiln::agent {

class CallRecorder {
 public:
  static constexpr uint32_t kDefaultMaxRecords = 10000;

  // `max_records` 0 takes the default.
  CallRecorder(bool trace, std::set<std::string> skip, uint32_t max_records);

  // The VM's instrument (vm::Instrument's signature).
  vm::InstrumentAction OnCall(absl::string_view callee, bool before_run, absl::Span<const vm::Value> args);

  // Starts recording one Invoke / InvokeStateful (clearing what an earlier one left); a no-op when
  // the mode does not trace.
  void Begin();
  // Stops recording and hands over what was recorded since Begin.
  kiln::v1::InstrumentTrace Finish();

  // "float32[4, 8]", "int 3", "shape (4, 8)", ...: what a record says of one argument.
  static std::string DescribeArg(const vm::Value& v);

 private:
  struct Open {
    int record;  // index in trace_, or -1 when past max_records
    int64_t start_ns;
  };

  const bool trace_mode_;
  const std::set<std::string> skip_;
  const uint32_t max_records_;
  bool recording_ = false;
  kiln::v1::InstrumentTrace trace_;
  // Calls that started and have not returned (a failing Call never returns to the instrument;
  // Begin drops what such a call left).
  std::vector<Open> open_;
};

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_CALL_RECORDER_H_
