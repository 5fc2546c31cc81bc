// Reading and writing numpy's .npy format (versions 1.0, 2.0 and 3.0), the interchange format of the
// `kiln run` command and of tests that compare with numpy.
//
// Supported element types: bool, int8..int64, uint8..uint64, float16, float32, float64, in either
// byte order (big-endian data is byte-swapped to the host's order on read), C or Fortran order
// (Fortran data is transposed to C order on read), any rank from 0 (a scalar) to 64. Tensors come
// back compact, in C order, in host byte order; numpy bools are normalized to 0/1 bytes.
// Structured, string, object, complex and datetime types are rejected by name.
//
// A file is untrusted input: every malformed or truncated header or payload is an INVALID_ARGUMENT
// status saying what is wrong, never a crash, and no allocation exceeds what the file's own payload
// holds.
#ifndef KILN_RUNTIME_NPY_H_
#define KILN_RUNTIME_NPY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/tensor.h"

namespace kiln::runtime {

// Parses the bytes of a .npy file into a new CPU tensor.
absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes);
// Reads (runtime::ReadRegularFile: size-bounded, regular files only) and parses a file; errors name
// the path.
absl::StatusOr<Tensor> ReadNpy(const std::string& path);

// The bytes of a .npy file (version 1.0) holding `tensor` in C order and host byte order.
// INVALID_ARGUMENT for a dtype numpy cannot hold (bfloat16, vectors), more than 64 dims or a
// non-CPU tensor. Works for strided tensors (written in logical order).
absl::StatusOr<std::string> SerializeNpy(const Tensor& tensor);
// Writes SerializeNpy's bytes to `path` (replaced if present).
absl::Status WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_NPY_H_
