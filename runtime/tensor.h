// An owning n-d array over DLPack, the runtime's one tensor type: what the CLI, the VM, the agent
// and the tests hand to kernels (as the DLTensor* of runtime/kernel_abi.h), and what crosses into
// and out of other frameworks as a DLManagedTensor.
//
// A Tensor is a cheap, copyable handle. Copies share the same immutable metadata (shape, strides,
// dtype, byte offset) and the same data: writing through one is visible through every copy and
// view, as with numpy arrays. The memory is released when the last handle (and the last
// DLManagedTensor exported from it) is gone. Memory a Tensor allocates itself comes from the
// device's DeviceAPI (runtime/device/device_api.h), aligned to kAllocAlignment.
//
// Strides are counted in elements (DLPack's convention) and always materialized: dl()->strides is
// never NULL for ndim > 0, which every consumer (DLPack 1.x, the kernel ABI) accepts.
#ifndef KILN_RUNTIME_TENSOR_H_
#define KILN_RUNTIME_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::runtime {

// DLPack 1.x's boolean type code (a byte holding 0 or 1); the system dlpack.h (0.6) predates it.
// The kernel ABI accepts it for bool buffers, and it is what numpy bool arrays map to.
inline constexpr uint8_t kDLBoolCode = 6;

// "float32", "int8", "uint16", "bool", "float16x4", "bfloat16", ...
std::string DTypeString(DLDataType dtype);
// The inverse of DTypeString for the scalar and vector types above. INVALID_ARGUMENT otherwise.
absl::StatusOr<DLDataType> ParseDType(absl::string_view text);
// Bytes one element occupies (lanes included); bool is one byte.
int64_t DTypeBytes(DLDataType dtype);
bool DTypeEqual(DLDataType a, DLDataType b);

class Tensor {
 public:
  Tensor() = default;  // undefined: defined() is false and no accessor may be called

  // A new tensor in C order on `device`, zero-filled (so outputs never leak stale memory).
  // INVALID_ARGUMENT for a negative dim, an unsupported dtype or a byte size that overflows.
  static absl::StatusOr<Tensor> Empty(const std::vector<int64_t>& shape, DLDataType dtype,
                                      DLDevice device = {kDLCPU, 0});

  // Takes ownership of `managed`: its deleter runs when the last handle is gone, or before an error
  // returns (a malformed tensor: negative ndim or dims, shape NULL with ndim > 0, lanes == 0).
  static absl::StatusOr<Tensor> FromDLPack(DLManagedTensor* managed);

  // A new DLManagedTensor sharing this tensor's data; the consumer calls its deleter once.
  DLManagedTensor* ToDLPack() const;

  bool defined() const { return c_ != nullptr; }
  // The DLTensor to hand to kernels. Stays valid while any handle to this tensor lives. Kernels
  // may write the data; the metadata must not be changed.
  DLTensor* dl() const;
  int ndim() const;
  const std::vector<int64_t>& shape() const;
  const std::vector<int64_t>& strides() const;  // in elements
  DLDataType dtype() const;
  DLDevice device() const;
  int64_t byte_offset() const;
  int64_t numel() const;
  int64_t nbytes() const { return numel() * DTypeBytes(dtype()); }
  // Address of the element at index (0, ..., 0): the DLTensor's data + byte_offset.
  void* data() const;
  // Row-major with no gaps (dims of extent 1 may have any stride, as DLPack allows).
  bool IsCompact() const;

  // A view of this tensor's data: element (i0, ..., ik) of the view is the element at
  // elem_offset + sum(i_d * strides[d]) counted from this tensor's element 0, in elements of
  // `dtype()`. The data pointer stays the allocation's and the offset goes to byte_offset, as
  // DLPack views do. Every element the view reaches must lie within this tensor's own extent
  // (OUT_OF_RANGE otherwise). `strides` empty means C order.
  absl::StatusOr<Tensor> View(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                              int64_t elem_offset = 0) const;

  // This tensor when compact, else a compact copy (CPU only).
  absl::StatusOr<Tensor> Contiguous() const;

  // A compact copy of this tensor on `device`, through the devices' DeviceAPIs (host <-> device,
  // within one device, or between two devices through the host). The source must be compact
  // (INVALID_ARGUMENT otherwise); on the CPU, Contiguous() first. Device data is never touched
  // on the host: data() of a GPU tensor is an opaque handle (plus byte_offset), not an address.
  absl::StatusOr<Tensor> CopyTo(DLDevice device) const;

  // Copies `src` element by element into this tensor (equal shape and dtype; CPU only; any strides).
  absl::Status CopyFrom(const Tensor& src) const;

 private:
  struct Container;
  explicit Tensor(std::shared_ptr<const Container> c) : c_(std::move(c)) {}
  std::shared_ptr<const Container> c_;
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_TENSOR_H_
