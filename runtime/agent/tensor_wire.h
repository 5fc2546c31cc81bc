// Values across the wire: kiln.v1.Value (proto/agent.proto) <-> vm::Value, and the session memory
// the agent's tensors come from.
//
// A tensor in a request arrives inline (its bytes in the message) or streamed (dtype and shape in
// the header, the bytes in later TensorChunk messages). Either way the agent allocates it once, at
// its final size, on the session's device and copies the bytes straight in: no staging buffer, so
// a 512 MiB input costs 512 MiB. Every byte is checked against the dtype and shape before the
// allocation, and the allocation against the session's memory limit.
#ifndef KILN_RUNTIME_AGENT_TENSOR_WIRE_H_
#define KILN_RUNTIME_AGENT_TENSOR_WIRE_H_

#include <dlpack/dlpack.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/agent.pb.h"
#include "runtime/tensor.h"
#include "runtime/vm/value.h"

namespace kiln::agent {

// Bytes of tensors alive, counted by whoever shares the counter (a session; the whole agent).
struct MemoryCounter {
  std::atomic<int64_t> bytes{0};
};

// The tensors a session's requests create. A tensor keeps the counters alive and gives its bytes
// back when its last handle goes, wherever that is (the VM's inputs, a saved function, a result).
class MemoryBudget {
 public:
  // limit 0: unlimited. `agent` (may be null) also counts every byte.
  MemoryBudget(uint64_t limit, std::shared_ptr<MemoryCounter> agent);

  // A compact tensor on `device` whose bytes are not initialized (the caller fills all of them).
  // INVALID_ARGUMENT for a negative dim or an overflowing size; RESOURCE_EXHAUSTED past the limit.
  absl::StatusOr<runtime::Tensor> Allocate(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device);

  uint64_t limit() const { return limit_; }
  int64_t used() const { return session_->bytes.load(); }

 private:
  uint64_t limit_;
  std::shared_ptr<MemoryCounter> session_;
  std::shared_ptr<MemoryCounter> agent_;
};

// Bytes of a tensor of `shape` and `dtype`, checking the dtype is one kiln knows and the size does
// not overflow. INVALID_ARGUMENT otherwise.
absl::StatusOr<int64_t> TensorBytes(const std::vector<int64_t>& shape, DLDataType dtype);

// Builds the vm::Values of one request (or, in a client, of one answer), allocating through
// `budget`, which must outlive the decoder, and then fills its streamed tensors from chunks.
class ValueDecoder {
 public:
  ValueDecoder(MemoryBudget* budget, DLDevice device, bool allow_streamed);

  absl::StatusOr<vm::Value> Decode(const kiln::v1::Value& v);
  // Copies one chunk into its tensor: the chunk must continue that tensor where the last one ended
  // and stay within it.
  absl::Status AddChunk(const kiln::v1::TensorChunk& chunk);
  // FAILED_PRECONDITION naming the first streamed tensor that is not complete.
  absl::Status CheckComplete() const;

 private:
  absl::StatusOr<runtime::Tensor> DecodeTensor(const kiln::v1::Tensor& t);

  struct Pending {
    runtime::Tensor tensor;
    uint64_t size = 0;
    uint64_t received = 0;
  };
  MemoryBudget* budget_;
  DLDevice device_;
  bool allow_streamed_;
  std::vector<Pending> streamed_;
};

// Writes `v` into `out`. With `streamed` null, tensors go inline; otherwise they are marked
// streamed and appended (compact, in depth-first order) to *streamed for the caller to send in
// chunks. UNIMPLEMENTED for values that cannot cross the wire (closures, storages).
absl::Status EncodeValue(const vm::Value& v, kiln::v1::Value* out, std::vector<runtime::Tensor>* streamed);

kiln::v1::DataType ToProto(DLDataType dtype);

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_TENSOR_WIRE_H_
