// The differential driver (see diff_runner.h): batches, builds, seeded inputs, comparison, reports.
#include "tests/diff/diff_runner.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/driver/tir_pipeline.h"
#include "compiler/script/printer/printer.h"
#include "compiler/target/llvm/jit.h"
#include "compiler/target/source/c/codegen_c.h"
#include "runtime/module.h"
#include "runtime/thread_pool.h"
#include "tests/diff/program_gen.h"

namespace kiln::difftest {
namespace {

using ir::DataType;

// ---- float16 bits (the values written are exactly representable, so no rounding is needed) ----
uint16_t ExactHalfBits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  v = std::fabs(v);
  if (v == 0) return sign;
  int e = std::ilogb(v);  // v = 1.m * 2^e, normal range for every value we write
  auto mantissa = static_cast<uint16_t>(std::ldexp(v, -e) * 1024 - 1024);
  return static_cast<uint16_t>(sign | ((e + 15) << 10) | mantissa);
}

double HalfToDouble(uint16_t h) {
  int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v;
  if (e == 0) {
    v = std::ldexp(m, -24);
  } else if (e == 31) {
    v = m ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(m + 1024, e - 25);
  }
  return sign ? -v : v;
}

DLDataType ToDL(DataType t) {
  constexpr uint8_t kDLBoolCode = 6;  // DLPack 1.x kDLBool (the system dlpack.h predates it)
  if (t.is_bool()) return {kDLBoolCode, 8, 1};
  return {t.code(), static_cast<uint8_t>(t.bits()), 1};
}

int64_t ElemBytes(DataType t) { return t.is_bool() ? 1 : t.bytes(); }

// Elements of storage a buffer arg needs: its offset plus the span its shape and strides reach.
int64_t StorageElems(const ArgSpec& a) {
  int64_t n = 1;
  if (a.strides.empty()) {
    for (int64_t d : a.shape) n *= d;
  } else {
    n = 1;
    for (size_t k = 0; k < a.shape.size(); ++k) n += (a.shape[k] - 1) * a.strides[k];
  }
  return a.elem_offset + n;
}

// One value of dtype t from the seeded stream, written to `p`.
void RandomElem(DataType t, std::mt19937_64* rng, char* p) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(*rng); };
  if (t.is_bool()) {
    *p = static_cast<char>(pick(0, 1));
    return;
  }
  if (t.is_float()) {
    int r = pick(0, 19);
    double v = r == 0 ? 0.0 : r == 1 ? -0.0 : r == 2 ? pick(-2000, 2000) + 0.5 : pick(-64, 64) / 8.0;
    if (t.bits() == 16) {
      uint16_t h = ExactHalfBits(v);
      std::memcpy(p, &h, 2);
    } else if (t.bits() == 32) {
      auto f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else {
      std::memcpy(p, &v, 8);
    }
    return;
  }
  int r = pick(0, 9);
  uint64_t bits;
  if (r < 5) {
    bits = static_cast<uint64_t>(static_cast<int64_t>(t.is_int() ? pick(-20, 20) : pick(0, 40)));
  } else if (r < 8) {
    bits = (*rng)();
  } else {
    // An extreme of the type: all ones (max for unsigned, -1 for signed), or min / max signed.
    uint64_t top = uint64_t{1} << (t.bits() - 1);
    bits = r == 8 ? ~uint64_t{0} : (pick(0, 1) ? top : top - 1);
  }
  std::memcpy(p, &bits, ElemBytes(t));  // little-endian: the low bytes
}

// The arguments of one run: storage per buffer (a private copy per leg), the DLTensors over it and
// the KilnAny array. Built in place and never moved, since the tensors point into it.
class Instance {
 public:
  Instance(const Program& p, uint64_t data_seed) : program_(p) {
    std::mt19937_64 rng(data_seed);
    size_t n = p.args.size();
    storage_.resize(n);
    tensors_.resize(n);
    args_.resize(n);
    for (size_t k = 0; k < n; ++k) {
      const ArgSpec& a = p.args[k];
      if (!a.is_buffer) {
        args_[k] = RandomScalar(a.dtype, &rng);
        continue;
      }
      int64_t elems = StorageElems(a), bytes = elems * ElemBytes(a.dtype);
      storage_[k].assign((bytes + 7) / 8 + 1, 0);  // uint64 words: 8-byte aligned
      char* base = reinterpret_cast<char*>(storage_[k].data());
      for (int64_t e = 0; e < elems; ++e) RandomElem(a.dtype, &rng, base + e * ElemBytes(a.dtype));
    }
    Bind();
  }
  Instance(const Instance& other) : program_(other.program_), storage_(other.storage_), args_(other.args_) {
    tensors_.resize(storage_.size());
    Bind();
  }
  Instance& operator=(const Instance&) = delete;

  const KilnAny* args() const { return args_.data(); }
  int32_t num_args() const { return static_cast<int32_t>(args_.size()); }
  const char* data(size_t k) const { return reinterpret_cast<const char*>(storage_[k].data()); }

 private:
  static KilnAny RandomScalar(DataType t, std::mt19937_64* rng) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(*rng); };
    KilnAny v{};
    if (t.is_float()) {
      v.type_index = kKilnFloat;
      v.v_float64 = pick(-64, 64) / 8.0;
    } else if (t.is_bool()) {
      v.type_index = kKilnBool;
      v.v_int64 = pick(0, 1);
    } else {
      v.type_index = kKilnInt;
      int r = pick(0, 9);
      int64_t lim = t.bits() == 64 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max();
      v.v_int64 = r < 7 ? pick(-50, 50) : r == 7 ? lim : r == 8 ? -lim - 1 : static_cast<int64_t>((*rng)() >> 40);
    }
    return v;
  }

  void Bind() {
    for (size_t k = 0; k < program_.args.size(); ++k) {
      const ArgSpec& a = program_.args[k];
      if (!a.is_buffer) continue;
      DLTensor& t = tensors_[k];
      t = DLTensor{};
      t.data = storage_[k].data();
      t.device = {kDLCPU, 0};
      t.ndim = static_cast<int32_t>(a.shape.size());
      t.dtype = ToDL(a.dtype);
      t.shape = const_cast<int64_t*>(a.shape.data());
      t.strides = a.strides.empty() ? nullptr : const_cast<int64_t*>(a.strides.data());
      t.byte_offset = static_cast<uint64_t>(a.elem_offset * ElemBytes(a.dtype));
      args_[k] = KilnAny{};
      args_[k].type_index = kKilnDLTensorPtr;
      args_[k].v_ptr = &t;
    }
  }

  const Program& program_;
  std::vector<std::vector<uint64_t>> storage_;
  std::vector<DLTensor> tensors_;
  std::vector<KilnAny> args_;
};

// ---- comparison ----
// Distance in ulps between two finite-or-infinite floats of the same width (their bit patterns
// mapped to a monotonic integer line).
uint64_t UlpDistance(int64_t a, int64_t b, int bits) {
  int64_t sign = int64_t{1} << (bits - 1);
  auto line = [&](int64_t x) { return (x & sign) ? -(x & (sign - 1)) : x; };
  int64_t d = line(a) - line(b);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

double LoadFloat(DataType t, const char* p, int64_t* bits) {
  *bits = 0;
  std::memcpy(bits, p, t.bytes());
  if (t.bits() == 16) return HalfToDouble(static_cast<uint16_t>(*bits));
  if (t.bits() == 32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  double d;
  std::memcpy(&d, p, 8);
  return d;
}

std::string ElemString(DataType t, const char* p) {
  if (t.is_float()) {
    int64_t bits;
    double v = LoadFloat(t, p, &bits);
    return absl::StrFormat("%.17g (0x%x)", v, bits);
  }
  int64_t v = 0;
  std::memcpy(&v, p, ElemBytes(t));
  int shift = 64 - 8 * static_cast<int>(ElemBytes(t));
  if (t.is_int() && shift > 0) v = (v << shift) >> shift;
  if (!t.is_int() && t.bits() == 64) return absl::StrCat(static_cast<uint64_t>(v));
  return absl::StrCat(v);
}

// Whether element `a` equals `b` for dtype t under the program's float tolerance.
bool SameElem(DataType t, const char* a, const char* b, bool uses_math) {
  if (!t.is_float()) return std::memcmp(a, b, ElemBytes(t)) == 0;
  int64_t ba, bb;
  double x = LoadFloat(t, a, &ba), y = LoadFloat(t, b, &bb);
  if (ba == bb || (std::isnan(x) && std::isnan(y))) return true;
  if (std::isnan(x) || std::isnan(y)) return false;
  if (UlpDistance(ba, bb, t.bits()) <= 2) return true;
  if (!uses_math || std::isinf(x) || std::isinf(y)) return false;
  double tol = t.bits() == 16 ? 2e-2 : t.bits() == 32 ? 1e-4 : 1e-9;
  return std::fabs(x - y) <= tol * std::max({1.0, std::fabs(x), std::fabs(y)});
}

// "" when every buffer of `got` matches `want`; else a description of the first differences.
std::string CompareRuns(const Program& p, const Instance& want, const Instance& got) {
  std::string out;
  for (size_t k = 0; k < p.args.size(); ++k) {
    const ArgSpec& a = p.args[k];
    if (!a.is_buffer) continue;
    int64_t n = StorageElems(a), eb = ElemBytes(a.dtype);
    int shown = 0, bad = 0;
    for (int64_t e = 0; e < n; ++e) {
      const char* x = want.data(k) + e * eb;
      const char* y = got.data(k) + e * eb;
      if (SameElem(a.dtype, x, y, p.uses_math)) continue;
      ++bad;
      if (shown++ < 4) {
        absl::StrAppend(&out, "    ", a.name, " storage[", e, "] (", a.dtype.ToString(), "): ", ElemString(a.dtype, x),
                        " vs ", ElemString(a.dtype, y), "\n");
      }
    }
    if (bad > 4) absl::StrAppend(&out, "    ... ", bad, " differing elements in ", a.name, "\n");
  }
  return out;
}

// ---- building ----
std::string TempDir(const DiffOptions& o) {
  if (!o.temp_dir.empty()) return o.temp_dir;
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

ir::IRModule ModuleOf(const std::vector<const Program*>& programs) {
  ir::IRModule m = ir::IRModule::Make();
  for (const Program* p : programs) m.Add(ir::GlobalVar(p->name), p->func);
  return m;
}

absl::StatusOr<std::unique_ptr<runtime::KernelModule>> BuildLLVM(const ir::IRModule& m, bool checked) {
  driver::PipelineOptions po;
  po.target_kind = "llvm";
  po.checked = checked;
  absl::StatusOr<ir::IRModule> lowered = driver::LowerTIR(m, po);
  if (!lowered.ok()) return lowered.status();
  auto jit = codegen::JitModule::Create(*lowered);
  if (!jit.ok()) return jit.status();
  return std::unique_ptr<runtime::KernelModule>(std::move(*jit));
}

absl::StatusOr<std::unique_ptr<runtime::KernelModule>> BuildC(const ir::IRModule& m, const std::string& path,
                                                              bool checked) {
  driver::PipelineOptions po;
  po.target_kind = "c";
  po.checked = checked;
  absl::StatusOr<ir::IRModule> lowered = driver::LowerTIR(m, po);
  if (!lowered.ok()) return lowered.status();
  absl::StatusOr<std::string> src = codegen::GenerateC(*lowered);
  if (!src.ok()) return src.status();
  if (absl::Status st = codegen::CompileCToSharedLibrary(*src, path); !st.ok()) return st;
  auto lib = runtime::KernelLibrary::Load(path);
  std::remove(path.c_str());  // the mapping outlives the file
  if (!lib.ok()) return lib.status();
  return std::unique_ptr<runtime::KernelModule>(std::move(*lib));
}

std::string Report(const Program& p, const std::string& what) {
  return absl::StrCat("seed ", p.seed, " (", p.name, "): ", what,
                      "\n  reproduce: KILN_DIFF_SEED=", p.seed, " KILN_DIFF_PROGRAMS=1\n", ProgramScript(p.seed));
}

struct Leg {
  std::string name;
  std::function<absl::Status(const Program&, const Instance&, KilnAny*)> run;
};

}  // namespace

std::string ProgramScript(uint64_t seed) {
  Program p = GenerateProgram(seed);
  script::printer::PrinterOptions po;
  po.func_name = p.name;
  return script::printer::Print(p.func, po);
}

DiffResult RunDifferential(const DiffOptions& options) {
  DiffResult result;
  runtime::ThreadPool pool(4);  // parallel loops really run in parallel
  // A fresh path per library: dlopen() hands back an already-loaded library for a known path.
  int libraries = 0;
  auto so_path = [&] { return absl::StrCat(TempDir(options), "/kiln_diff_", getpid(), "_", libraries++, ".so"); };
  for (int start = 0; start < options.num_programs; start += options.batch_size) {
    int n = std::min(options.batch_size, options.num_programs - start);
    std::vector<Program> programs;
    for (int k = 0; k < n; ++k) programs.push_back(GenerateProgram(options.first_seed + start + k));
    result.programs += n;
    std::vector<const Program*> all;
    for (const Program& p : programs) all.push_back(&p);
    ir::IRModule batch = ModuleOf(all);

    // Build both backends for the batch; on failure, per program (to name the culprit).
    // The two builds are independent (each compile owns its LLVM context); overlap them.
    absl::StatusOr<std::unique_ptr<runtime::KernelModule>> c = absl::UnknownError("not built");
    std::thread c_thread([&, path = so_path()] { c = BuildC(batch, path, options.checked); });
    auto llvm = BuildLLVM(batch, options.checked);
    c_thread.join();
    std::vector<std::unique_ptr<runtime::KernelModule>> own;  // per-program fallbacks
    std::vector<const runtime::KernelModule*> llvm_of(n), c_of(n);
    for (int k = 0; k < n; ++k) {
      llvm_of[k] = llvm.ok() ? llvm->get() : nullptr;
      c_of[k] = c.ok() ? c->get() : nullptr;
      if (llvm.ok() && c.ok()) continue;
      ir::IRModule one = ModuleOf({&programs[k]});
      if (!llvm.ok()) {
        auto m = BuildLLVM(one, options.checked);
        if (!m.ok()) {
          result.failures.push_back(Report(programs[k], absl::StrCat("LLVM build failed: ", m.status().message())));
          continue;
        }
        llvm_of[k] = m->get();
        own.push_back(std::move(*m));
      }
      if (!c.ok()) {
        auto m = BuildC(one, so_path(), options.checked);
        if (!m.ok()) {
          result.failures.push_back(Report(programs[k], absl::StrCat("C build failed: ", m.status().message())));
          llvm_of[k] = nullptr;
          continue;
        }
        c_of[k] = m->get();
        own.push_back(std::move(*m));
      }
    }

    for (int k = 0; k < n; ++k) {
      const Program& p = programs[k];
      if (llvm_of[k] == nullptr || c_of[k] == nullptr) continue;
      std::vector<Leg> legs;
      if (options.interpreter) {
        ir::IRModule one = ModuleOf({&p});
        legs.push_back({"interp", [&options, one](const Program& p, const Instance& in, KilnAny* r) {
                          return options.interpreter(one, p.name, in.args(), in.num_args(), r);
                        }});
      }
      for (auto [name, mod] : {std::pair{"llvm", llvm_of[k]}, std::pair{"c", c_of[k]}}) {
        legs.push_back({name, [mod = mod, &pool](const Program& p, const Instance& in, KilnAny* r) {
                          return mod->Call(p.name, in.args(), in.num_args(), r, pool.env());
                        }});
      }
      Instance inputs(p, p.seed * 0x9E3779B97F4A7C15ull + 1);
      std::vector<std::unique_ptr<Instance>> runs;
      std::vector<absl::Status> status;
      for (const Leg& leg : legs) {
        runs.push_back(std::make_unique<Instance>(inputs));
        KilnAny r{};
        status.push_back(leg.run(p, *runs.back(), &r));
      }
      std::string problems;
      for (size_t l = 0; l < legs.size(); ++l) {
        if (!status[l].ok()) absl::StrAppend(&problems, "  ", legs[l].name, " failed: ", status[l].message(), "\n");
      }
      if (problems.empty()) {
        for (size_t l = 1; l < legs.size(); ++l) {
          std::string diff = CompareRuns(p, *runs[0], *runs[l]);
          if (!diff.empty()) absl::StrAppend(&problems, "  ", legs[0].name, " vs ", legs[l].name, ":\n", diff);
        }
      }
      if (problems.empty()) {
        ++result.compared;
      } else {
        result.failures.push_back(Report(p, absl::StrCat("legs disagree\n", problems)));
      }
    }
  }
  return result;
}

}  // namespace kiln::difftest
