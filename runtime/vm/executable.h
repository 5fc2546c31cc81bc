// A Relax VM executable: the bytecode of TVM's VMExecutable, byte for byte, followed by kiln's
// library section (the compiled kernels it calls). What `kiln build` writes (.kx), what kilnd
// caches and serves, and what the VM and kiln-agent load.
//
// Serialized layout (little-endian; str = u64 len + bytes; vector = u64 count + elements):
//   u64 magic 0xD225DE2F4214151E | str version "0.14"
//   global section       vector<FuncInfo>  (i32 kind | str name | i64 start_instr | i64 end_instr
//                                           | i64 num_args | i64 register_file_size | vector<str> param_names)
//   memory-scope section u64 n, n x (i64 const_index, str scope)
//   constant section     u64 n, n x (i32 type_tag, payload)  -- tags in ConstantTag below
//   code section         vector<i64> instr_offset, vector<i64> instr_data
//   -- kiln's library section (absent in TVM's files; a TVM bytecode-only file loads with no libraries)
//   u64 magic kLibrarySectionMagic | u64 n, n x (str kind | str target | str name | u64 fnv1a64(bytes) | str bytes)
// See ../shared/notes/tvm-reference.md §2 for the TVM side, and bytecode.h for instructions.
//
// Loading (Deserialize) validates everything before anything runs: sizes against the remaining
// input, every count, function kind, instruction range, register index (< register_file_size or a
// special register), argument kind, constant and function index, jump target (inside the
// function), library checksum. Errors are INVALID_ARGUMENT naming the section and the offset;
// hostile input never crashes or hangs, and every count is checked against the bytes left before
// anything is allocated for it (memory stays within a small multiple of the input's size).
// kiln's own rules on top of TVM's: function names are unique, jumps only go forward (Relax has
// no loops, so no program can spin), a VM function ends with ret, and register_file_size is at
// most num_args + its instruction count + 4096 (TVM's ExecBuilder gives num_args + the number of
// distinct destinations).
#ifndef KILN_RUNTIME_VM_EXECUTABLE_H_
#define KILN_RUNTIME_VM_EXECUTABLE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <dlpack/dlpack.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/tensor.h"
#include "runtime/vm/bytecode.h"

namespace kiln::vm {

inline constexpr uint64_t kExecutableMagic = 0xD225DE2F4214151EULL;
inline constexpr uint64_t kExecutableMagicV1 = 0xD225DE2F4214151DULL;  // no memory-scope section
inline constexpr char kExecutableVersion[] = "0.14";
inline constexpr uint64_t kLibrarySectionMagic = 0x4B494C4E4C494231ULL;  // "KILNLIB1"
inline constexpr char kDeviceLibraryKind[] = "device";

struct FuncInfo {
  enum class Kind : int32_t { kPackedFunc = 0, kVMFunc = 1, kVMTIRFunc = 2 };
  Kind kind = Kind::kPackedFunc;
  std::string name;
  int64_t start_instr = 0;  // VM functions: [start_instr, end_instr) indexes instr_offset
  int64_t end_instr = 0;
  int64_t num_args = 0;
  int64_t register_file_size = 0;
  std::vector<std::string> param_names;
};

// tvm-ffi's static type indices, as TVM writes them in the constant section.
enum class ConstantTag : int32_t {
  kInt = 1, kFloat = 3, kDataType = 5, kStr = 65, kShape = 69, kTensor = 70,
};

struct Constant {
  ConstantTag tag = ConstantTag::kInt;
  int64_t int_value = 0;            // kInt
  double float_value = 0;           // kFloat
  DLDataType dtype{};               // kDataType
  std::string str;                  // kStr
  std::vector<int64_t> shape;       // kShape
  runtime::Tensor tensor;           // kTensor (on the CPU, compact)
};

// A compiled library the executable carries. kind: "host-so" (a shared object with the kernel ABI
// of runtime/kernel_abi.h, loaded with dlopen; name "host") or "device" (a runtime::DeviceBlob,
// runtime/device/device_module.h: device code plus its kernel table; name = the blob's format,
// "opencl", "spirv", "ptx", "cubin" or "hsaco", which picks the device runtime that loads it).
// target: the normalized target string it was built for ("llvm -mtriple=...", "opencl", ...).
// A GPU build carries both: the host code (argument checks, launch sizes) as "host-so", calling
// the kernels of the "device" library through KilnKernelEnv::device_launch; the VM runs such an
// executable on the device of its device library.
struct LibraryBlob {
  std::string kind;
  std::string target;
  std::string name;
  std::string bytes;
};

struct Executable {
  std::vector<FuncInfo> func_table;
  std::unordered_map<std::string, int64_t> func_map;  // name -> index into func_table
  std::vector<std::pair<int64_t, std::string>> memory_scopes;  // const index -> scope
  std::vector<Constant> constants;
  std::vector<int64_t> instr_offset;  // start of each instruction in instr_data
  std::vector<int64_t> instr_data;
  std::vector<LibraryBlob> libraries;

  // The bytes described above. TVM's reader accepts everything before the library section.
  std::string Serialize() const;
  // Parses and validates (see the header comment). Never trusts a count or an offset.
  static absl::StatusOr<Executable> Deserialize(absl::string_view bytes);
  // The structural checks Deserialize runs, for executables built in memory.
  absl::Status Validate() const;

  // TVM's VMExecutable::AsText, byte for byte (tvm-reference.md §2.2).
  std::string AsText() const;
  // TVM's AsPython: an ExecBuilder program.
  std::string AsPython() const;
  // TVM's "Relax VM executable statistics:" report, plus kiln's library section.
  std::string Stats() const;
};

}  // namespace kiln::vm

#endif  // KILN_RUNTIME_VM_EXECUTABLE_H_
