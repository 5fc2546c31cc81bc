/* The kiln kernel ABI: the one C entry point every compiled PrimFunc exports, on every host.
 *
 * A PrimFunc named `f` with global_symbol `f` is compiled (LLVM or C backend) to
 *
 *   int32_t f(void* self, const KilnAny* args, int32_t num_args, KilnAny* result);
 *
 * `args` holds one KilnAny per PrimFunc parameter, in order: a buffer parameter is a DLTensor*
 * (type_index kKilnDLTensorPtr), a scalar an int (kKilnInt / kKilnBool) or float (kKilnFloat).
 * The entry checks every argument against the PrimFunc's signature as the TIR spec's buffer
 * binding rules say (type code, ndim, dtype, each shape dim against constants or symbolic vars,
 * strides compact unless the buffer declares strides, byte_offset vs elem_offset, data alignment,
 * device type) and returns 0 on success. On failure it returns -1 and sets `*result` to
 * {kKilnErrorMessage, v_ptr = a NUL-terminated message naming the argument and the mismatch}; the
 * message is a constant inside the library (valid while it is loaded). Keeping the error in the
 * caller's result slot makes every call reentrant with no thread-local state, which also works
 * for kernels JIT-compiled in process. A PrimFunc return value (tirx.ret) is written to `result`. `self` is a `const KilnKernelEnv*` (or NULL): the services the calling runtime lends
 * the kernel: a parallel-for over its thread pool, and the device launcher for host code of GPU
 * targets. With NULL, parallel loops run serially.
 *
 * KilnAny is layout-compatible with tvm-ffi's TVMFFIAny (16 bytes: type index, padding, 8-byte
 * payload), and the type indices below use the same numbers, so the calling sequence is the one
 * TVM's packed kernels use; only the error channel is kiln's own (no runtime symbol imports: a
 * kernel library is self-contained and loads with a plain dlopen()). A library also exports
 * `kiln_kernel_names`, the list of its kernels.
 */
#ifndef KILN_RUNTIME_KERNEL_ABI_H_
#define KILN_RUNTIME_KERNEL_ABI_H_

#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

enum KilnTypeIndex {
  kKilnNone = 0,
  kKilnInt = 1,
  kKilnBool = 2,
  kKilnFloat = 3,
  kKilnOpaquePtr = 4,
  kKilnDataType = 5,
  kKilnDevice = 6,
  kKilnDLTensorPtr = 7,
  kKilnErrorMessage = 65, /* v_ptr: const char*, set by a failing kernel */
  /* v_ptr: char* from malloc(), set by a failed check of a checked-mode kernel (its message holds
   * run-time values); the caller owns it and frees it with free(). When checks fail in several
   * chunks of one parallel loop at once, the last write wins and the other messages are lost
   * (not freed). */
  kKilnErrorMessageOwned = 66,
};

typedef struct {
  int32_t type_index;
  uint32_t zero_padding;
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    DLDataType v_dtype;
    DLDevice v_device;
  };
} KilnAny;

/* Runs body(begin, end, closure) over disjoint chunks covering [0, n) on the runtime's thread
 * pool and returns 0, or the first non-zero value a chunk returned. */
typedef int32_t (*KilnParallelBody)(int64_t begin, int64_t end, void* closure);
/* Launches device kernel `kernel` (host code split from a GPU PrimFunc calls this where its TIR
 * has T.call_packed("<kernel>", ...)): args in the launch convention of
 * runtime/device/device_module.h (the kernel's params, buffers as device data pointers, then one
 * int extent per launch param). Returns 0, or non-zero with `*result` set to {kKilnErrorMessage,
 * a message owned by the launcher, valid until its next launch}. */
typedef int32_t (*KilnDeviceLaunchFn)(void* launcher, const char* kernel, const KilnAny* args, int32_t num_args,
                                      KilnAny* result);

typedef struct {
  int32_t (*parallel_for)(void* pool, int64_t n, KilnParallelBody body, void* closure);
  void* pool;
  /* NULL when the calling runtime has no device modules: host code that launches fails with a
   * message instead. */
  KilnDeviceLaunchFn device_launch;
  void* launcher;
  /* Device workspace for host code of GPU targets (buffers its kernels share, such as a fused
   * kernel's intermediates): `nbytes` bytes of device memory, or NULL with `*result` set to
   * {kKilnErrorMessage, ...}; freed with device_free (the launcher frees what a failed call left). */
  void* (*device_alloc)(void* launcher, int64_t nbytes, KilnAny* result);
  void (*device_free)(void* launcher, void* ptr);
} KilnKernelEnv;

typedef int32_t (*KilnKernelFn)(void* self, const KilnAny* args, int32_t num_args, KilnAny* result);

/* Every kernel library exports this symbol besides its kernels: a NUL-separated, double-NUL-terminated list of the kernel names the library exports. */
#define KILN_KERNEL_TABLE_SYMBOL "kiln_kernel_names"

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* KILN_RUNTIME_KERNEL_ABI_H_ */
