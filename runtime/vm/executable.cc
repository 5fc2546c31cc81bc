#include "runtime/vm/executable.h"

#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace kiln::vm {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the executable format is little-endian");

// TVM's DLTensor blob magic (SaveDLTensor).
constexpr uint64_t kTensorMagic = 0xDD5E40F096B4A13FULL;

// Bounds that keep a hostile file from making the VM allocate unbounded register files: a VM
// function's parameters and its registers beyond one per instruction.
constexpr int64_t kMaxNumArgs = int64_t{1} << 20;
constexpr int64_t kRegisterSlack = 4096;

// ---------------------------------------------------------------------------------------------
// Writing.

class Writer {
 public:
  template <typename T>
  void Pod(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void Str(absl::string_view s) {
    Pod<uint64_t>(s.size());
    out_.append(s.data(), s.size());
  }
  void I64s(const std::vector<int64_t>& v) {
    Pod<uint64_t>(v.size());
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t));
  }
  void DType(DLDataType t) {
    Pod<uint8_t>(t.code);
    Pod<uint8_t>(t.bits);
    Pod<uint16_t>(t.lanes);
  }
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

uint64_t Fnv1a64(absl::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// TVM's byte count for a tensor blob: (bits + 7) / 8 per element, lanes ignored.
int64_t BlobElemBytes(DLDataType t) { return (t.bits + 7) / 8; }

void WriteTensor(Writer& w, const runtime::Tensor& t) {
  w.Pod<uint64_t>(kTensorMagic);
  w.Pod<uint64_t>(0);
  w.Pod<int32_t>(kDLCPU);
  w.Pod<int32_t>(0);
  w.Pod<int32_t>(t.ndim());
  w.DType(t.dtype());
  for (int64_t d : t.shape()) w.Pod<int64_t>(d);
  int64_t nbytes = t.numel() * BlobElemBytes(t.dtype());
  w.Pod<int64_t>(nbytes);
  w.Raw(t.data(), static_cast<size_t>(nbytes));
}

// ---------------------------------------------------------------------------------------------
// Reading: every read checks the remaining input first, and errors name the section and offset.

class Reader {
 public:
  explicit Reader(absl::string_view in) : in_(in) {}
  size_t pos() const { return pos_; }
  size_t remaining() const { return in_.size() - pos_; }
  void set_section(const char* s) { section_ = s; }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid executable: ", section_, " section at byte ", pos_, ": ", what));
  }

  template <typename T>
  absl::Status Pod(T* v) {
    if (remaining() < sizeof(T)) return Error(absl::StrCat("truncated (need ", sizeof(T), " bytes)"));
    std::memcpy(v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return absl::OkStatus();
  }
  absl::Status Str(std::string* s) {
    uint64_t n;
    if (auto st = Pod(&n); !st.ok()) return st;
    if (n > remaining()) return Error(absl::StrCat("string length ", n, " exceeds the remaining ", remaining(), " bytes"));
    s->assign(in_.data() + pos_, n);
    pos_ += n;
    return absl::OkStatus();
  }
  // A count of elements at least `min_elem_bytes` each; rejects counts the input cannot hold.
  absl::Status Count(uint64_t* n, size_t min_elem_bytes, const char* what) {
    if (auto st = Pod(n); !st.ok()) return st;
    if (*n > remaining() / min_elem_bytes) {
      return Error(absl::StrCat(what, " count ", *n, " exceeds what the remaining ", remaining(), " bytes hold"));
    }
    return absl::OkStatus();
  }
  absl::Status I64s(std::vector<int64_t>* v, const char* what) {
    uint64_t n;
    if (auto st = Count(&n, sizeof(int64_t), what); !st.ok()) return st;
    v->resize(n);
    if (n > 0) std::memcpy(v->data(), in_.data() + pos_, n * sizeof(int64_t));
    pos_ += n * sizeof(int64_t);
    return absl::OkStatus();
  }
  absl::Status DType(DLDataType* t) {
    uint8_t code, bits;
    uint16_t lanes;
    if (auto st = Pod(&code); !st.ok()) return st;
    if (auto st = Pod(&bits); !st.ok()) return st;
    if (auto st = Pod(&lanes); !st.ok()) return st;
    *t = DLDataType{code, bits, lanes};
    return absl::OkStatus();
  }
  absl::Status Raw(void* dst, size_t n) {
    if (n > remaining()) return Error(absl::StrCat("truncated (need ", n, " bytes)"));
    if (n > 0) std::memcpy(dst, in_.data() + pos_, n);
    pos_ += n;
    return absl::OkStatus();
  }

 private:
  absl::string_view in_;
  size_t pos_ = 0;
  const char* section_ = "header";
};

#define KILN_RETURN_IF_ERROR(expr)             \
  do {                                         \
    absl::Status _st = (expr);                 \
    if (!_st.ok()) return _st;                 \
  } while (0)

absl::Status ReadTensor(Reader& r, runtime::Tensor* out) {
  uint64_t magic, reserved;
  int32_t dev_type, dev_id, ndim;
  DLDataType dtype;
  KILN_RETURN_IF_ERROR(r.Pod(&magic));
  if (magic != kTensorMagic) return r.Error("bad tensor magic");
  KILN_RETURN_IF_ERROR(r.Pod(&reserved));
  KILN_RETURN_IF_ERROR(r.Pod(&dev_type));
  KILN_RETURN_IF_ERROR(r.Pod(&dev_id));
  if (dev_type != kDLCPU) return r.Error(absl::StrCat("tensor constant on device type ", dev_type, " (only CPU tensors are stored)"));
  KILN_RETURN_IF_ERROR(r.Pod(&ndim));
  KILN_RETURN_IF_ERROR(r.DType(&dtype));
  if (ndim < 0 || static_cast<uint64_t>(ndim) > r.remaining() / sizeof(int64_t)) {
    return r.Error(absl::StrCat("tensor ndim ", ndim, " out of range"));
  }
  if (dtype.lanes != 1 || dtype.bits == 0) return r.Error(absl::StrCat("unsupported tensor constant dtype ", runtime::DTypeString(dtype)));
  std::vector<int64_t> shape(ndim);
  // The product of the non-zero dims must fit too: an empty tensor's strides are still computed.
  int64_t nonzero_product = 1;
  bool has_zero = false;
  for (int i = 0; i < ndim; ++i) {
    KILN_RETURN_IF_ERROR(r.Pod(&shape[i]));
    if (shape[i] < 0) return r.Error(absl::StrCat("negative tensor dimension ", shape[i]));
    if (shape[i] == 0) {
      has_zero = true;
    } else if (nonzero_product > std::numeric_limits<int64_t>::max() / shape[i]) {
      return r.Error("tensor dimensions overflow");
    } else {
      nonzero_product *= shape[i];
    }
  }
  const int64_t numel = has_zero ? 0 : nonzero_product;
  int64_t nbytes;
  KILN_RETURN_IF_ERROR(r.Pod(&nbytes));
  int64_t elem = BlobElemBytes(dtype);
  if (numel > std::numeric_limits<int64_t>::max() / elem || nbytes != numel * elem) {
    return r.Error(absl::StrCat("tensor byte size ", nbytes, " does not match its shape and dtype"));
  }
  if (static_cast<uint64_t>(nbytes) > r.remaining()) return r.Error("tensor data truncated");
  absl::StatusOr<runtime::Tensor> t = runtime::Tensor::Empty(shape, dtype);
  if (!t.ok()) return r.Error(t.status().message());
  if (t->nbytes() != nbytes) return r.Error("tensor byte size does not match its dtype");
  KILN_RETURN_IF_ERROR(r.Raw(t->data(), static_cast<size_t>(nbytes)));
  *out = *std::move(t);
  return absl::OkStatus();
}

// Words of the instruction starting at instr_data[off], or 0 when it is malformed or truncated.
int64_t InstrLength(const std::vector<int64_t>& data, int64_t off) {
  int64_t n = static_cast<int64_t>(data.size());
  if (off < 0 || off >= n) return 0;
  switch (static_cast<Opcode>(data[off])) {
    case Opcode::kCall: {
      if (off + 4 > n) return 0;
      int64_t num_args = data[off + 3];
      if (num_args < 0 || num_args > n - off - 4) return 0;
      return 4 + num_args;
    }
    case Opcode::kRet: return off + 2 <= n ? 2 : 0;
    case Opcode::kGoto: return off + 2 <= n ? 2 : 0;
    case Opcode::kIf: return off + 3 <= n ? 3 : 0;
  }
  return 0;
}

std::string RegNameToStr(int64_t reg) {
  if (reg == kVoidRegister) return "%void";
  if (reg == kVMRegister) return "%vm";
  return absl::StrCat("%", reg);
}

}  // namespace

// -------------------------------------------------------------------------------------------------

std::string Executable::Serialize() const {
  Writer w;
  w.Pod<uint64_t>(kExecutableMagic);
  w.Str(kExecutableVersion);
  w.Pod<uint64_t>(func_table.size());
  for (const FuncInfo& f : func_table) {
    w.Pod<int32_t>(static_cast<int32_t>(f.kind));
    w.Str(f.name);
    w.Pod<int64_t>(f.start_instr);
    w.Pod<int64_t>(f.end_instr);
    w.Pod<int64_t>(f.num_args);
    w.Pod<int64_t>(f.register_file_size);
    w.Pod<uint64_t>(f.param_names.size());
    for (const std::string& p : f.param_names) w.Str(p);
  }
  w.Pod<uint64_t>(memory_scopes.size());
  for (const auto& [index, scope] : memory_scopes) {
    w.Pod<int64_t>(index);
    w.Str(scope);
  }
  w.Pod<uint64_t>(constants.size());
  for (const Constant& c : constants) {
    w.Pod<int32_t>(static_cast<int32_t>(c.tag));
    switch (c.tag) {
      case ConstantTag::kInt: w.Pod<int64_t>(c.int_value); break;
      case ConstantTag::kFloat: w.Pod<double>(c.float_value); break;
      case ConstantTag::kDataType: w.DType(c.dtype); break;
      case ConstantTag::kStr: w.Str(c.str); break;
      case ConstantTag::kShape: w.I64s(c.shape); break;
      case ConstantTag::kTensor: WriteTensor(w, c.tensor); break;
    }
  }
  w.I64s(instr_offset);
  w.I64s(instr_data);
  if (!libraries.empty()) {
    w.Pod<uint64_t>(kLibrarySectionMagic);
    w.Pod<uint64_t>(libraries.size());
    for (const LibraryBlob& lib : libraries) {
      w.Str(lib.kind);
      w.Str(lib.target);
      w.Str(lib.name);
      w.Pod<uint64_t>(Fnv1a64(lib.bytes));
      w.Str(lib.bytes);
    }
  }
  return w.Take();
}

absl::StatusOr<Executable> Executable::Deserialize(absl::string_view bytes) {
  Reader r(bytes);
  Executable exec;
  uint64_t magic;
  KILN_RETURN_IF_ERROR(r.Pod(&magic));
  if (magic != kExecutableMagic && magic != kExecutableMagicV1) {
    return r.Error(absl::StrCat("bad magic 0x", absl::Hex(magic), " (not a Relax VM executable)"));
  }
  std::string version;
  KILN_RETURN_IF_ERROR(r.Str(&version));
  if (version != kExecutableVersion) {
    return r.Error(absl::StrCat("version \"", absl::CEscape(version), "\", expected \"", kExecutableVersion, "\""));
  }

  r.set_section("global");
  uint64_t nfunc;
  // Smallest FuncInfo: i32 kind, empty name (8), four i64, empty param list (8).
  KILN_RETURN_IF_ERROR(r.Count(&nfunc, 4 + 8 + 32 + 8, "function"));
  exec.func_table.resize(nfunc);
  for (FuncInfo& f : exec.func_table) {
    int32_t kind;
    KILN_RETURN_IF_ERROR(r.Pod(&kind));
    if (kind < 0 || kind > 2) return r.Error(absl::StrCat("unknown function kind ", kind));
    f.kind = static_cast<FuncInfo::Kind>(kind);
    KILN_RETURN_IF_ERROR(r.Str(&f.name));
    KILN_RETURN_IF_ERROR(r.Pod(&f.start_instr));
    KILN_RETURN_IF_ERROR(r.Pod(&f.end_instr));
    KILN_RETURN_IF_ERROR(r.Pod(&f.num_args));
    KILN_RETURN_IF_ERROR(r.Pod(&f.register_file_size));
    uint64_t nparams;
    KILN_RETURN_IF_ERROR(r.Count(&nparams, 8, "parameter name"));
    f.param_names.resize(nparams);
    for (std::string& p : f.param_names) KILN_RETURN_IF_ERROR(r.Str(&p));
  }
  for (size_t i = 0; i < exec.func_table.size(); ++i) {
    if (!exec.func_map.emplace(exec.func_table[i].name, static_cast<int64_t>(i)).second) {
      return r.Error(absl::StrCat("function \"", exec.func_table[i].name, "\" appears twice"));
    }
  }

  if (magic == kExecutableMagic) {
    r.set_section("memory-scope");
    uint64_t n;
    KILN_RETURN_IF_ERROR(r.Count(&n, 16, "memory scope"));
    exec.memory_scopes.resize(n);
    for (auto& [index, scope] : exec.memory_scopes) {
      KILN_RETURN_IF_ERROR(r.Pod(&index));
      KILN_RETURN_IF_ERROR(r.Str(&scope));
    }
  }

  r.set_section("constant");
  uint64_t nconst;
  KILN_RETURN_IF_ERROR(r.Count(&nconst, 4 + 4, "constant"));  // smallest: tag + dtype
  exec.constants.resize(nconst);
  for (Constant& c : exec.constants) {
    int32_t tag;
    KILN_RETURN_IF_ERROR(r.Pod(&tag));
    c.tag = static_cast<ConstantTag>(tag);
    switch (c.tag) {
      case ConstantTag::kInt: KILN_RETURN_IF_ERROR(r.Pod(&c.int_value)); break;
      case ConstantTag::kFloat: KILN_RETURN_IF_ERROR(r.Pod(&c.float_value)); break;
      case ConstantTag::kDataType: KILN_RETURN_IF_ERROR(r.DType(&c.dtype)); break;
      case ConstantTag::kStr: KILN_RETURN_IF_ERROR(r.Str(&c.str)); break;
      case ConstantTag::kShape: KILN_RETURN_IF_ERROR(r.I64s(&c.shape, "shape dimension")); break;
      case ConstantTag::kTensor: KILN_RETURN_IF_ERROR(ReadTensor(r, &c.tensor)); break;
      default: return r.Error(absl::StrCat("unknown constant type tag ", tag));
    }
  }

  r.set_section("code");
  KILN_RETURN_IF_ERROR(r.I64s(&exec.instr_offset, "instruction offset"));
  KILN_RETURN_IF_ERROR(r.I64s(&exec.instr_data, "instruction word"));

  if (r.remaining() > 0) {
    r.set_section("library");
    uint64_t lib_magic;
    KILN_RETURN_IF_ERROR(r.Pod(&lib_magic));
    if (lib_magic != kLibrarySectionMagic) return r.Error("trailing bytes that are not a kiln library section");
    uint64_t nlib;
    KILN_RETURN_IF_ERROR(r.Count(&nlib, 8 * 5, "library"));
    exec.libraries.resize(nlib);
    for (LibraryBlob& lib : exec.libraries) {
      uint64_t checksum;
      KILN_RETURN_IF_ERROR(r.Str(&lib.kind));
      KILN_RETURN_IF_ERROR(r.Str(&lib.target));
      KILN_RETURN_IF_ERROR(r.Str(&lib.name));
      KILN_RETURN_IF_ERROR(r.Pod(&checksum));
      KILN_RETURN_IF_ERROR(r.Str(&lib.bytes));
      if (Fnv1a64(lib.bytes) != checksum) {
        return r.Error(absl::StrCat("checksum mismatch in library \"", absl::CEscape(lib.name), "\""));
      }
    }
    if (r.remaining() > 0) return r.Error(absl::StrCat(r.remaining(), " trailing bytes"));
  }
  KILN_RETURN_IF_ERROR(exec.Validate());
  return exec;
}

absl::Status Executable::Validate() const {
  auto bad = [](auto&&... parts) { return absl::InvalidArgumentError(absl::StrCat("invalid executable: ", parts...)); };
  const int64_t nfunc = static_cast<int64_t>(func_table.size());
  const int64_t nconst = static_cast<int64_t>(constants.size());
  const int64_t ninstr = static_cast<int64_t>(instr_offset.size());

  if (func_map.size() != func_table.size()) return bad("func_map has ", func_map.size(), " entries for ", nfunc, " functions");
  for (const auto& [name, index] : func_map) {
    if (index < 0 || index >= nfunc || func_table[index].name != name) return bad("func_map entry \"", name, "\" does not match the function table");
  }
  for (const auto& [index, scope] : memory_scopes) {
    if (index < 0 || index >= nconst) return bad("memory scope for constant ", index, " of ", nconst);
  }
  for (int64_t i = 0; i < nconst; ++i) {
    const Constant& c = constants[i];
    if (c.tag == ConstantTag::kTensor) {
      const runtime::Tensor& t = c.tensor;
      if (!t.defined()) return bad("constant ", i, " is an undefined tensor");
      if (t.device().device_type != kDLCPU || !t.IsCompact() || t.dtype().lanes != 1) {
        return bad("constant ", i, " must be a compact scalar-lane CPU tensor");
      }
    }
  }
  // Instructions: each offset starts a well-formed instruction that ends inside instr_data.
  for (int64_t i = 0; i < ninstr; ++i) {
    if (InstrLength(instr_data, instr_offset[i]) == 0) {
      return bad("instruction ", i, " at word ", instr_offset[i], " is malformed or truncated");
    }
  }
  for (int64_t fi = 0; fi < nfunc; ++fi) {
    const FuncInfo& f = func_table[fi];
    auto fbad = [&](auto&&... parts) { return bad("function \"", f.name, "\": ", parts...); };
    if (f.kind == FuncInfo::Kind::kPackedFunc) {
      if (f.name.empty()) return fbad("packed function without a name");
      continue;
    }
    if (f.num_args < 0 || f.num_args > kMaxNumArgs) return fbad("num_args ", f.num_args, " out of range");
    if (!f.param_names.empty() && static_cast<int64_t>(f.param_names.size()) != f.num_args) {
      return fbad(f.param_names.size(), " parameter names for ", f.num_args, " arguments");
    }
    if (f.kind == FuncInfo::Kind::kVMTIRFunc) {
      if (f.register_file_size < f.num_args + 1 || f.register_file_size > f.num_args + kRegisterSlack) {
        return fbad("register_file_size ", f.register_file_size, " out of range");
      }
      continue;
    }
    if (f.start_instr < 0 || f.start_instr >= f.end_instr || f.end_instr > ninstr) {
      return fbad("instruction range [", f.start_instr, ", ", f.end_instr, ") outside [0, ", ninstr, ")");
    }
    const int64_t rfs = f.register_file_size;
    if (rfs < f.num_args || rfs > f.num_args + (f.end_instr - f.start_instr) + kRegisterSlack) {
      return fbad("register_file_size ", rfs, " out of range for ", f.num_args, " arguments and ",
                  f.end_instr - f.start_instr, " instructions");
    }
    auto reg_ok = [&](int64_t r, bool allow_vm) {
      return (r >= 0 && r < rfs) || r == kVoidRegister || (allow_vm && r == kVMRegister);
    };
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      const int64_t* w = instr_data.data() + instr_offset[pc];
      auto ibad = [&](auto&&... parts) { return fbad("instruction ", pc, ": ", parts...); };
      switch (static_cast<Opcode>(w[0])) {
        case Opcode::kCall: {
          if (!reg_ok(w[1], false)) return ibad("destination register ", w[1], " out of range");
          if (w[2] < 0 || w[2] >= nfunc) return ibad("function index ", w[2], " out of range");
          for (int64_t a = 0; a < w[3]; ++a) {
            InstrArg arg(w[4 + a]);
            int64_t v = arg.value();
            switch (arg.kind_byte()) {
              case static_cast<uint8_t>(ArgKind::kRegister):
                if (!reg_ok(v, true)) return ibad("argument ", a, ": register ", v, " out of range");
                break;
              case static_cast<uint8_t>(ArgKind::kImmediate): break;
              case static_cast<uint8_t>(ArgKind::kConstIdx):
                if (v < 0 || v >= nconst) return ibad("argument ", a, ": constant index ", v, " out of range");
                break;
              case static_cast<uint8_t>(ArgKind::kFuncIdx):
                if (v < 0 || v >= nfunc) return ibad("argument ", a, ": function index ", v, " out of range");
                break;
              default: return ibad("argument ", a, ": unknown kind ", static_cast<int>(arg.kind_byte()));
            }
          }
          break;
        }
        case Opcode::kRet:
          if (!reg_ok(w[1], false)) return ibad("result register ", w[1], " out of range");
          break;
        case Opcode::kGoto:
          // Relax control flow only jumps forward; requiring it means no program can loop.
          if (w[1] < 1 || w[1] > f.end_instr - pc - 1) return ibad("goto offset ", w[1], " leaves the function or jumps backward");
          break;
        case Opcode::kIf:
          if (!reg_ok(w[1], false) || w[1] == kVoidRegister) return ibad("condition register ", w[1], " out of range");
          if (w[2] <= 1 || w[2] > f.end_instr - pc - 1) return ibad("if false offset ", w[2], " leaves the function or is not > 1");
          break;
      }
    }
    if (static_cast<Opcode>(instr_data[instr_offset[f.end_instr - 1]]) != Opcode::kRet) {
      return fbad("the last instruction is not ret");
    }
  }
  return absl::OkStatus();
}

// -------------------------------------------------------------------------------------------------
// Text forms. Callers normally print validated executables; out-of-range indices print as TVM
// prints them rather than reading outside the tables.

namespace {

std::string FuncName(const Executable& e, int64_t index) {
  if (index >= 0 && index < static_cast<int64_t>(e.func_table.size())) return e.func_table[index].name;
  return absl::StrCat("unknown_func_index(", index, ")");
}

// The instruction at `pc` when well-formed, else nullptr.
const int64_t* InstrAt(const Executable& e, int64_t pc) {
  if (pc < 0 || pc >= static_cast<int64_t>(e.instr_offset.size())) return nullptr;
  int64_t off = e.instr_offset[pc];
  return InstrLength(e.instr_data, off) == 0 ? nullptr : e.instr_data.data() + off;
}

}  // namespace

std::string Executable::AsText() const {
  auto arg_str = [&](InstrArg arg) -> std::string {
    switch (arg.kind_byte()) {
      case static_cast<uint8_t>(ArgKind::kRegister): return RegNameToStr(arg.value());
      case static_cast<uint8_t>(ArgKind::kImmediate): return absl::StrCat("i", arg.value());
      case static_cast<uint8_t>(ArgKind::kConstIdx): return absl::StrCat("c[", arg.value(), "]");
      case static_cast<uint8_t>(ArgKind::kFuncIdx): return absl::StrCat("f[", FuncName(*this, arg.value()), "]");
    }
    return absl::StrCat("<kind ", static_cast<int>(arg.kind_byte()), ">");
  };
  std::ostringstream os;
  for (const FuncInfo& f : func_table) {
    if (f.kind == FuncInfo::Kind::kPackedFunc) {
      os << "@" << f.name << " packed_func;\n\n";
      continue;
    }
    if (f.kind == FuncInfo::Kind::kVMTIRFunc) {
      os << "@" << f.name << " num_inputs=" << f.num_args << " vm_tir_func;\n\n";
      continue;
    }
    os << "@" << f.name << ":\n";
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      os << "  ";
      const int64_t* w = InstrAt(*this, pc);
      if (w == nullptr) {
        os << "<malformed instruction>\n";
        continue;
      }
      switch (static_cast<Opcode>(w[0])) {
        case Opcode::kCall: {
          std::string args;
          for (int64_t a = 0; a < w[3]; ++a) {
            if (a > 0) args += ", ";
            args += arg_str(InstrArg(w[4 + a]));
          }
          os << std::setw(6) << std::left << "call" << std::setw(16) << std::left << FuncName(*this, w[2])
             << " in: " << std::setw(12) << std::left << args << " dst: " << RegNameToStr(w[1]) << "\n";
          break;
        }
        case Opcode::kRet: os << std::setw(6) << std::left << "ret " << RegNameToStr(w[1]) << "\n"; break;
        case Opcode::kGoto: os << std::setw(6) << std::left << "goto" << w[1] << "\n"; break;
        case Opcode::kIf: os << std::setw(6) << std::left << "If" << RegNameToStr(w[1]) << ", " << w[2] << "\n"; break;
      }
    }
    os << "\n";
  }
  return os.str();
}

std::string Executable::AsPython() const {
  auto func_str = [&](int64_t index) -> std::string {
    if (index >= 0 && index < static_cast<int64_t>(func_table.size())) return absl::StrCat("\"", func_table[index].name, "\"");
    return absl::StrCat("ib.unknown_func_index(", index, ")");
  };
  auto arg_str = [&](InstrArg arg) -> std::string {
    switch (arg.kind_byte()) {
      case static_cast<uint8_t>(ArgKind::kRegister):
        return arg.value() == kVMRegister ? "ib.r(vm)" : absl::StrCat("ib.r(", arg.value(), ")");
      case static_cast<uint8_t>(ArgKind::kImmediate): return absl::StrCat("ib.imm(", arg.value(), ")");
      case static_cast<uint8_t>(ArgKind::kConstIdx): return absl::StrCat("ib.c(", arg.value(), ")");
      case static_cast<uint8_t>(ArgKind::kFuncIdx): return absl::StrCat("ib.f(", func_str(arg.value()), ")");
    }
    return absl::StrCat("<kind ", static_cast<int>(arg.kind_byte()), ">");
  };
  std::string os = "ib = rx.Builder()\n";
  for (const FuncInfo& f : func_table) {
    if (f.kind != FuncInfo::Kind::kVMFunc) continue;
    absl::StrAppend(&os, "with ib.function(\"", f.name, "\", num_inputs=", f.num_args, "):\n");
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      const int64_t* w = InstrAt(*this, pc);
      if (w == nullptr) {
        absl::StrAppend(&os, "    # malformed instruction\n");
        continue;
      }
      switch (static_cast<Opcode>(w[0])) {
        case Opcode::kCall: {
          absl::StrAppend(&os, "    ib.emit_call(", func_str(w[2]), ", args=[");
          for (int64_t a = 0; a < w[3]; ++a) absl::StrAppend(&os, a > 0 ? ", " : "", arg_str(InstrArg(w[4 + a])));
          absl::StrAppend(&os, "]");
          if (w[1] != kVoidRegister) absl::StrAppend(&os, ", dst=ib.r(", w[1], ")");
          absl::StrAppend(&os, ")\n");
          break;
        }
        case Opcode::kRet: absl::StrAppend(&os, "    ib.emit_ret(ib.r(", w[1], "))\n"); break;
        case Opcode::kGoto: absl::StrAppend(&os, "    ib.emit_goto(", w[1], ")\n"); break;
        case Opcode::kIf: absl::StrAppend(&os, "    ib.emit_if(ib.r(", w[1], "), ", w[2], ")\n"); break;
      }
    }
  }
  return os;
}

std::string Executable::Stats() const {
  // TVM builds each list with a trailing ", " and then backs up over it.
  auto trim = [](std::string* s) { s->resize(s->size() - 2); };
  std::string os = "Relax VM executable statistics:\n";
  absl::StrAppend(&os, "  Constant pool (# ", constants.size(), "): [");
  for (const Constant& c : constants) {
    switch (c.tag) {
      case ConstantTag::kTensor: {
        if (c.tensor.ndim() == 0) {
          os += "scalar, ";
          break;
        }
        os += "[";
        for (int64_t d : c.tensor.shape()) absl::StrAppend(&os, d, ", ");
        trim(&os);
        os += "], ";
        break;
      }
      case ConstantTag::kShape:
        os += "shapetuple[";
        for (int64_t d : c.shape) absl::StrAppend(&os, d, ", ");
        if (!c.shape.empty()) trim(&os);
        os += "], ";
        break;
      case ConstantTag::kStr: absl::StrAppend(&os, "\"", c.str, "\", "); break;
      case ConstantTag::kInt: absl::StrAppend(&os, c.int_value, ", "); break;
      case ConstantTag::kFloat: absl::StrAppend(&os, c.float_value, ", "); break;
      case ConstantTag::kDataType: absl::StrAppend(&os, runtime::DTypeString(c.dtype), ", "); break;
    }
  }
  if (!constants.empty()) trim(&os);
  os += "]\n";
  absl::StrAppend(&os, "  Globals (#", func_table.size(), "): [");
  for (const FuncInfo& f : func_table) absl::StrAppend(&os, f.name, ", ");
  if (!func_table.empty()) trim(&os);
  os += "]\n";
  absl::StrAppend(&os, "  Libraries (#", libraries.size(), "): [");
  for (const LibraryBlob& lib : libraries) {
    absl::StrAppend(&os, lib.name, " (", lib.kind, ", ", lib.target, ", ", lib.bytes.size(), " bytes), ");
  }
  if (!libraries.empty()) trim(&os);
  os += "]\n";
  return os;
}

}  // namespace kiln::vm
