// Differential test of the GPU targets on generated kernels: random thread-bound PrimFuncs
// (float32 and int32 expression trees over buffer loads, thread indices and scalars: arithmetic,
// wrapping integer ops, floor/trunc division and modulo by both signs, shifts, bitwise ops,
// min/max, Select, if_then_else guarding a load, comparisons and logic, casts, math functions,
// local accumulators in loops, shared memory with a barrier) run on the reference interpreter,
// on vulkan (SPIR-V on lavapipe), on opencl (PoCL), and on cuda (NVRTC) and nvptx (LLVM) where an
// NVIDIA GPU is present (tests/gpu/run_cuda.sh runs this test there); integer outputs must be equal, float outputs
// close (the devices may contract a*b+c into an fma, and math functions differ in the last bits).
// A target whose device is missing is skipped with the reason; any other failure fails.
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "compiler/driver/run.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

constexpr int kKernels = 24;
constexpr DLDataType kF32 = {kDLFloat, 32, 1}, kI32 = {kDLInt, 32, 1};

// Random expression trees. `i` is the global index, guarded to be < n; other loads use indices
// kept in range with floormod by n.
class ExprGen {
 public:
  // `i`: how the kernel spells the global index.
  ExprGen(std::mt19937* rng, std::string i) : rng_(rng), i_(std::move(i)) {}

  std::string Float(int depth) {
    if (depth == 0) {
      switch (Pick(5)) {
        case 0: return absl::StrCat("A[", i_, "]");
        case 1: return absl::StrCat("A[(", i_, " * ", Pick(7) + 2, " + ", Pick(5), ") % n]");
        case 2: return "s";
        case 3: return "acc[0]";
        default: return absl::StrCat("T.float32(", static_cast<int>(Pick(17)) - 8, ".5)");
      }
    }
    std::string a = Float(depth - 1), b = Float(depth - 1);
    switch (Pick(12)) {
      case 0: return absl::StrCat("(", a, " + ", b, ")");
      case 1: return absl::StrCat("(", a, " - ", b, ")");
      case 2: return absl::StrCat("(", a, " * ", b, ")");
      case 3: return absl::StrCat("T.max(", a, ", ", b, ")");
      case 4: return absl::StrCat("T.min(", a, ", ", b, ")");
      case 5: return absl::StrCat("T.Select(", Cond(depth - 1), ", ", a, ", ", b, ")");
      case 6: return absl::StrCat("T.Cast(\"float32\", ", Int(depth - 1), ")");
      case 7: return absl::StrCat("T.exp(T.min(", a, ", T.float32(4)))");
      case 8: return absl::StrCat("T.sqrt(T.fabs(", a, "))");
      case 9: return absl::StrCat("T.tanh(", a, ")");
      case 10: return absl::StrCat("T.if_then_else(", i_, " + ", Pick(4), " < n, A[T.min(", i_, " + ", Pick(4), ", n - 1)], ", b, ")");
      default: return absl::StrCat("T.floor(", a, ")");
    }
  }

  std::string Int(int depth) {
    if (depth == 0) {
      switch (Pick(6)) {
        case 0: return absl::StrCat("B[", i_, "]");
        case 1: return absl::StrCat("B[(", i_, " * ", Pick(5) + 2, " + 1) % n]");
        case 2: return i_;
        case 3: return "tx";
        case 4: return "k";
        default: return absl::StrCat(static_cast<int>(Pick(41)) - 20);
      }
    }
    std::string a = Int(depth - 1), b = Int(depth - 1);
    int divisor = static_cast<int>(Pick(9)) + 1;
    if (Pick(2) == 0) divisor = -divisor;
    switch (Pick(13)) {
      case 0: return absl::StrCat("(", a, " + ", b, ")");
      case 1: return absl::StrCat("(", a, " - ", b, ")");
      case 2: return absl::StrCat("(", a, " * ", b, ")");
      case 3: return absl::StrCat("(", a, " // ", divisor, ")");
      case 4: return absl::StrCat("(", a, " % ", divisor, ")");
      case 5: return absl::StrCat("T.truncdiv(", a, ", ", divisor, ")");
      case 6: return absl::StrCat("T.truncmod(", a, ", ", divisor, ")");
      case 7: return absl::StrCat("T.shift_right(", a, ", ", Pick(6), ")");
      case 8: return absl::StrCat("T.shift_left(", a, ", ", Pick(6), ")");
      case 9: return absl::StrCat("T.bitwise_xor(", a, ", T.bitwise_and(", b, ", ", Pick(255), "))");
      case 10: return absl::StrCat("T.max(", a, ", ", b, ")");
      case 11: return absl::StrCat("T.min(", a, ", T.bitwise_or(", b, ", 3))");
      default: return absl::StrCat("T.Select(", Cond(depth - 1), ", ", a, ", ", b, ")");
    }
  }

  std::string Cond(int depth) {
    if (depth == 0) {
      switch (Pick(3)) {
        case 0: return absl::StrCat("(", Int(0), " < ", Int(0), ")");
        case 1: return absl::StrCat("(", Int(0), " % 3 == 0)");
        default: return absl::StrCat("(", Float(0), " > ", Float(0), ")");
      }
    }
    switch (Pick(5)) {
      case 0: return absl::StrCat("(", Cond(depth - 1), " and ", Cond(depth - 1), ")");
      case 1: return absl::StrCat("(", Cond(depth - 1), " or ", Cond(depth - 1), ")");
      case 2: return absl::StrCat("(not ", Cond(depth - 1), ")");
      case 3: return absl::StrCat("(", Int(depth - 1), " >= ", Int(depth - 1), ")");
      default: return absl::StrCat("(", Float(depth - 1), " <= ", Float(depth - 1), ")");
    }
  }

  uint32_t Pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(*rng_); }

 private:
  std::mt19937* rng_;
  std::string i_;
};

// One kernel: grid x block threads over n elements (a tail when n is not a multiple), a local
// accumulator built in a loop, and (in every third kernel) a shared-memory tile reversed across a
// barrier.
std::string Kernel(int id, std::mt19937* rng) {
  int block = 4 << std::uniform_int_distribution<int>(0, 4)(*rng);  // 4 .. 64
  bool shared = id % 3 == 0;
  // The interpreter takes barriers only between the top-level statements of a thread block, so
  // the shared-memory kernels spell the index out instead of binding it.
  std::string index = shared ? absl::StrCat("(bx * ", block, " + tx)") : "i";
  ExprGen g(rng, index);
  int depth = 2 + static_cast<int>(g.Pick(2));
  std::ostringstream s;
  s << "    @T.prim_func\n"
    << "    def k" << id << "(a: T.handle, b: T.handle, c: T.handle, d: T.handle, s: T.float32, k: T.int32):\n"
    << "        n = T.int32()\n"
    << "        A = T.match_buffer(a, (n,), \"float32\")\n"
    << "        B = T.match_buffer(b, (n,), \"int32\")\n"
    << "        C = T.match_buffer(c, (n,), \"float32\")\n"
    << "        D = T.match_buffer(d, (n,), \"int32\")\n";
  if (shared) {
    s << "        bx = T.launch_thread(\"blockIdx.x\", (n + " << block - 1 << ") // " << block << ")\n"
      << "        tile = T.alloc_shared((" << block << ",), \"int32\")\n"
      << "        tx = T.launch_thread(\"threadIdx.x\", " << block << ")\n"
      << "        tile[tx] = T.if_then_else(" << index << " < n, B[T.min(" << index << ", n - 1)], 0)\n"
      << "        T.tvm_storage_sync(\"shared\")\n"
      << "        if " << index << " < n:\n"
      << "            acc = T.alloc_local((1,), \"float32\")\n"
      << "            acc[0] = T.float32(0)\n"
      << "            C[" << index << "] = " << g.Float(depth) << "\n"
      << "            D[" << index << "] = tile[" << block - 1 << " - tx] * 3 + " << g.Int(depth) << "\n";
    return s.str();
  }
  s << "        for bx in T.thread_binding((n + " << block - 1 << ") // " << block << ", thread=\"blockIdx.x\"):\n"
    << "            for tx in T.thread_binding(" << block << ", thread=\"threadIdx.x\"):\n"
    << "                i: T.let[T.int32] = bx * " << block << " + tx\n"
    << "                if i < n:\n"
    << "                    acc = T.alloc_local((1,), \"float32\")\n"
    << "                    acc[0] = T.float32(0)\n"
    << "                    for j in range(" << 1 + g.Pick(4) << "):\n"
    << "                        acc[0] = acc[0] + A[(i + j) % n] * T.float32(0.5)\n"
    << "                    C[i] = " << g.Float(depth) << "\n"
    << "                    D[i] = " << g.Int(depth) << "\n";
  return s.str();
}

runtime::Tensor Empty(const std::vector<int64_t>& shape, DLDataType dt) { return *runtime::Tensor::Empty(shape, dt); }

runtime::Tensor Copy(const runtime::Tensor& t) {
  runtime::Tensor c = Empty(t.shape(), t.dtype());
  std::memcpy(c.data(), t.data(), t.nbytes());
  return c;
}

struct Target {
  std::string name;
  std::unique_ptr<Runner> runner;
  std::string skipped;  // why the target does not run here
};

TEST(GpuDifferentialTest, GeneratedKernelsAgreeAcrossInterpAndGPUTargets) {
  std::mt19937 rng(20261125);
  std::string source = "@I.ir_module\nclass Module:\n";
  for (int id = 0; id < kKernels; ++id) source += Kernel(id, &rng);
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "generated.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << source;
  ir::IRModule module = ir::Downcast<ir::IRModule>(*parsed);

  std::vector<Target> targets;
  for (const char* name : {"interp", "vulkan", "opencl", "cuda", "nvptx"}) {
    RunOptions options;
    absl::StatusOr<RunTarget> t = ParseRunTarget(name);
    ASSERT_TRUE(t.ok()) << t.status();
    options.target = *t;
    options.device_target = name;
    absl::StatusOr<std::unique_ptr<Runner>> r = Runner::Create(module, options);
    Target target{name, nullptr, ""};
    if (r.ok()) {
      target.runner = *std::move(r);
    } else {
      ASSERT_TRUE(absl::IsUnavailable(r.status())) << name << ": " << r.status() << "\n" << source;
      target.skipped = std::string(r.status().message());
    }
    targets.push_back(std::move(target));
  }
  int compared = 0;
  for (const Target& t : targets) {
    if (t.runner == nullptr) std::cerr << "skipping " << t.name << ": " << t.skipped << "\n";
  }

  std::uniform_real_distribution<float> unit(-2, 2);
  std::uniform_int_distribution<int32_t> ints(-100000, 100000);
  for (int id = 0; id < kKernels; ++id) {
    std::string entry = absl::StrCat("k", id);
    for (int64_t n : {1, 37, 130}) {
      runtime::Tensor a = Empty({n}, kF32), b = Empty({n}, kI32);
      for (int64_t j = 0; j < n; ++j) {
        static_cast<float*>(a.data())[j] = unit(rng);
        static_cast<int32_t*>(b.data())[j] = ints(rng);
      }
      runtime::Tensor s = Empty({}, kF32), k = Empty({}, kI32);
      *static_cast<float*>(s.data()) = unit(rng);
      *static_cast<int32_t*>(k.data()) = ints(rng);
      std::vector<std::vector<runtime::Tensor>> results;
      for (const Target& t : targets) {
        if (t.runner == nullptr) continue;
        std::vector<runtime::Tensor> args = {Copy(a), Copy(b), Empty({n}, kF32), Empty({n}, kI32), Copy(s), Copy(k)};
        std::memset(args[2].data(), 0, args[2].nbytes());
        std::memset(args[3].data(), 0, args[3].nbytes());
        absl::StatusOr<KilnAny> r = t.runner->Call(entry, args);
        ASSERT_TRUE(r.ok()) << t.name << " " << entry << " n=" << n << ": " << r.status();
        results.push_back(args);
      }
      for (size_t x = 1; x < results.size(); ++x) {
        const std::vector<runtime::Tensor>& want = results[0];
        const std::vector<runtime::Tensor>& got = results[x];
        for (int64_t j = 0; j < n; ++j) {
          float fw = static_cast<const float*>(want[2].data())[j], fg = static_cast<const float*>(got[2].data())[j];
          if (!(std::isnan(fw) && std::isnan(fg))) {
            ASSERT_NEAR(fw, fg, 1e-4 * std::max(1.0f, std::abs(fw)))
                << entry << " n=" << n << " C[" << j << "]\n" << source;
          }
          ASSERT_EQ(static_cast<const int32_t*>(want[3].data())[j], static_cast<const int32_t*>(got[3].data())[j])
              << entry << " n=" << n << " D[" << j << "]\n" << source;
        }
        ++compared;
      }
    }
  }
  std::cerr << compared << " runs compared against the interpreter\n";
  if (compared == 0) GTEST_SKIP() << "no GPU target is available on this machine";
}

}  // namespace
}  // namespace kiln::driver
