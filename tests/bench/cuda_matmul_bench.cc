// kiln's default GPU schedule against cuBLAS, measured in the same run on the same device with
// CUDA events. Each kernel is what a user gets: a Relax module (R.matmul of two N x N float32 or
// float16 matrices; R.add of 2^26 float32) built by the Relax pipeline for the target (GPU
// legalization + ScheduleDefaultGPU, then NVRTC for cuda or LLVM for nvptx) and timed through the
// VM's time_evaluator after set_input, as `kiln bench` times it (invoke_stateful: the kernel plus
// the VM's dispatch and output allocation). cuBLAS runs C = A B on the same inputs (float16
// accumulates in float32, as kiln's legalization does: GemmEx with CUBLAS_COMPUTE_32F), and kiln's
// output is checked against it before anything is timed. The add is reported beside the device's
// copy bandwidth (read + write), the ceiling of elementwise kernels.
//
// Without a GPU (or without the driver) it prints "no CUDA device: <reason>" and exits 0;
// without libcublas it times kiln alone.
//
// First it checks small float16 GEMMs against the host (kChecks); the exit status is 1 if one fails.
//
//   bazel run -c opt //tests/bench:cuda_matmul_bench -- [--n 4096] [--repeat 20] [--target nvptx]
//       [--arch sm_90]
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "runtime/profiling/time_evaluator.h"
#include "runtime/tensor.h"
#include "runtime/vm/vm.h"
#include "runtime/device/cuda/cuda_device.h"

namespace kiln {
namespace {

using runtime::cuda::CUDABuffer;
using runtime::cuda::CUDADevice;

constexpr char kMatmul[] = R"(
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((MM, KK), "DTYPE"), b: R.Tensor((KK, NN), "DTYPE")) -> R.Tensor((MM, NN), "OUT"):
        with R.dataflow():
            c = R.matmul(a, b, out_dtype="OUT")
            R.output(c)
        return c
)";

constexpr char kAdd[] = R"(
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((NN,), "float32"), b: R.Tensor((NN,), "float32")) -> R.Tensor((NN,), "float32"):
        with R.dataflow():
            c = R.add(a, b)
            R.output(c)
        return c
)";

// The cuBLAS entry points used, through dlopen (no link dependency).
struct CuBLAS {
  using Handle = void*;
  int (*Create)(Handle*);
  int (*Destroy)(Handle);
  int (*Sgemm)(Handle, int, int, int, int, int, const float*, const void*, int, const void*, int, const float*, void*,
               int);
  int (*GemmEx)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                const void*, void*, int, int, int, int);
  Handle handle = nullptr;
};

bool LoadCuBLAS(CuBLAS* b, std::string* why) {
  void* h = nullptr;
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
    if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
  }
  if (h == nullptr) {
    *why = "libcublas not found";
    return false;
  }
  b->Create = reinterpret_cast<decltype(b->Create)>(dlsym(h, "cublasCreate_v2"));
  b->Destroy = reinterpret_cast<decltype(b->Destroy)>(dlsym(h, "cublasDestroy_v2"));
  b->Sgemm = reinterpret_cast<decltype(b->Sgemm)>(dlsym(h, "cublasSgemm_v2"));
  b->GemmEx = reinterpret_cast<decltype(b->GemmEx)>(dlsym(h, "cublasGemmEx"));
  if (!b->Create || !b->Destroy || !b->Sgemm || !b->GemmEx) {
    *why = "libcublas lacks cublasCreate_v2/cublasSgemm_v2/cublasGemmEx";
    return false;
  }
  if (b->Create(&b->handle) != 0) {
    *why = "cublasCreate failed";
    return false;
  }
  return true;
}

uint16_t ToHalf(float f) {  // round to nearest even; inputs are small normals
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u, exp = (u >> 23) & 0xffu, mant = u & 0x7fffffu;
  if (exp < 113) return static_cast<uint16_t>(sign);
  uint32_t h = ((exp - 112) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float FromHalf(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t u = exp == 0 ? sign : sign | ((exp + 112) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Small float16 GEMMs against a float64 reference on the host, before anything is timed: shapes
// with one K tile, fewer K tiles than the schedule's pipeline stages, several output tiles, a long
// K, a float32 output, and one the tensor-core tiles do not divide. A failure prints the first
// wrong element, so a layout error can be located.
struct CheckShape {
  int m, n, k;
  const char* out;
};
constexpr CheckShape kChecks[] = {{128, 256, 64, "float16"},  {128, 256, 128, "float32"}, {256, 512, 192, "float16"},
                                  {384, 768, 640, "float32"}, {256, 256, 256, "float16"}, {200, 136, 72, "float16"},
                                  {256, 512, 4096, "float32"}};

// A VM over `source` built for `target`, its inputs set.
absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> Prepare(const std::string& source, const std::string& target,
                                                            std::vector<vm::Value> inputs) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "bench.py");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<vm::Executable> exec = driver::BuildExecutable(ir::Downcast<ir::IRModule>(*parsed), target);
  if (!exec.ok()) return exec.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
      vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(exec)));
  if (!machine.ok()) return machine.status();
  absl::Status st = (*machine)->SetInput("main", std::move(inputs));
  if (!st.ok()) return st;
  return machine;
}

// Seconds per invoke_stateful of main: the best of `repeat` batches of `number` calls (device
// events), after one warm-up call.
absl::StatusOr<double> TimeStateful(vm::VirtualMachine* machine, int number, int repeat) {
  profiling::TimeEvalOptions options;
  options.number = number;
  options.repeat = repeat;
  absl::StatusOr<std::vector<double>> results = machine->TimeEvaluatorStateful("main", options);
  if (!results.ok()) return results.status();
  return *std::min_element(results->begin(), results->end());
}

int Fail(const absl::Status& st) {
  std::fprintf(stderr, "cuda_matmul_bench: %s\n", std::string(st.message()).c_str());
  return 1;
}

std::string MatmulSource(int m, int n, int k, const char* dtype, const char* out) {
  return absl::StrReplaceAll(kMatmul, {{"MM", absl::StrCat(m)},
                                       {"NN", absl::StrCat(n)},
                                       {"KK", absl::StrCat(k)},
                                       {"DTYPE", dtype},
                                       {"OUT", out}});
}

// Runs kChecks on `target`; false when one fails or cannot run.
bool CheckSmallGemms(const std::string& target) {
  bool all_ok = true;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  DLDataType f16 = {kDLFloat, 16, 1};
  for (const CheckShape& c : kChecks) {
    absl::StatusOr<runtime::Tensor> ta = runtime::Tensor::Empty({c.m, c.k}, f16), tb = runtime::Tensor::Empty({c.k, c.n}, f16);
    if (!ta.ok() || !tb.ok()) return false;
    // Random float16 values into the tensor, and their exact float values for the reference.
    auto fill = [&](runtime::Tensor* t, size_t count) {
      std::vector<float> values(count);
      for (size_t i = 0; i < count; ++i) {
        uint16_t h = ToHalf(dist(rng));
        values[i] = FromHalf(h);
        std::memcpy(static_cast<uint8_t*>(t->data()) + 2 * i, &h, 2);
      }
      return values;
    };
    const std::vector<float> a = fill(&*ta, static_cast<size_t>(c.m) * c.k);
    const std::vector<float> b = fill(&*tb, static_cast<size_t>(c.k) * c.n);
    const bool half_out = std::string(c.out) == "float16";
    std::string what = absl::StrCat(c.m, "x", c.n, "x", c.k, " -> ", c.out);
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
        Prepare(MatmulSource(c.m, c.n, c.k, "float16", c.out), target, {vm::Value::Tensor(*ta), vm::Value::Tensor(*tb)});
    absl::Status st = machine.ok() ? (*machine)->InvokeStateful("main") : machine.status();
    absl::StatusOr<vm::Value> out = st.ok() ? (*machine)->GetOutput("main") : absl::StatusOr<vm::Value>(st);
    if (!out.ok()) {
      std::printf("check %-24s FAILED: %s\n", what.c_str(), std::string(out.status().message()).c_str());
      all_ok = false;
      continue;
    }
    const auto* got = static_cast<const uint8_t*>(out->as_tensor().data());
    double worst = 0;
    int bad = -1;
    for (int i = 0; i < c.m; ++i) {
      for (int j = 0; j < c.n; ++j) {
        double want = 0;
        for (int l = 0; l < c.k; ++l) want += static_cast<double>(a[static_cast<size_t>(i) * c.k + l]) * b[static_cast<size_t>(l) * c.n + j];
        size_t at = static_cast<size_t>(i) * c.n + j;
        float g;
        if (half_out) {
          uint16_t h;
          std::memcpy(&h, got + 2 * at, 2);
          g = FromHalf(h);
        } else {
          std::memcpy(&g, got + 4 * at, 4);
        }
        double err = std::fabs(g - want) / (std::fabs(want) + 1.0);
        if (err > worst) worst = err;
        // float16 rounding of the result; float32 sums in another order (K up to 4096 terms).
        if (bad < 0 && !(err < (half_out ? 1e-2 : 1e-3))) {
          bad = static_cast<int>(at);
          std::printf("check %-24s first wrong element C[%d][%d] = %g, want %g\n", what.c_str(), i, j, g, want);
        }
      }
    }
    std::printf("check %-24s max_rel_err %.2e %s\n", what.c_str(), worst, bad < 0 ? "ok" : "FAILED");
    all_ok = all_ok && bad < 0;
  }
  std::fflush(stdout);
  return all_ok;
}

int Run(int argc, char** argv) {
  int n = 4096, repeat = 20;
  std::string backend = "cuda", arch;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--n") n = std::atoi(argv[i + 1]);
    if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
    if (a == "--target") backend = argv[i + 1];
    if (a == "--arch") arch = argv[i + 1];
  }
  if (n <= 0 || repeat <= 0 || (backend != "cuda" && backend != "nvptx")) {
    std::fprintf(stderr, "usage: cuda_matmul_bench [--n N>0] [--repeat R>0] [--target cuda|nvptx] [--arch sm_XY[a]]\n");
    return 2;
  }
  absl::StatusOr<std::unique_ptr<CUDADevice>> dev = CUDADevice::Open();
  if (!dev.ok()) {
    std::printf("no CUDA device: %s\n", std::string(dev.status().message()).c_str());
    return 0;
  }
  // By default the device's own arch; for cuda on compute capability 9.0 its arch-specific set
  // sm_90a, whose wgmma the default schedule's float16 GEMM uses (LLVM 16's nvptx has no sm_90a).
  if (arch.empty()) {
    arch = absl::StrCat("sm_", (*dev)->compute_capability());
    if (backend == "cuda" && (*dev)->compute_capability() == 90) arch += "a";
  }
  std::string target = backend == "nvptx" ? "nvptx -mcpu=" + arch : "cuda -arch=" + arch;
  CuBLAS cublas;
  std::string no_cublas;
  bool has_cublas = LoadCuBLAS(&cublas, &no_cublas);
  std::printf("cuda_matmul_bench on %s: kiln's default schedule (%s) vs %s, C = A B, %d x %d, best of 3 x %d\n",
              (*dev)->description().c_str(), target.c_str(), has_cublas ? "cuBLAS" : no_cublas.c_str(), n, n, repeat);
  const bool checks_ok = CheckSmallGemms(target);
  std::printf("%-8s %12s %12s %12s %12s %10s %12s\n", "dtype", "kiln_ms", "kiln_TFLOPS", "cublas_ms", "cublas_TFLOPS",
              "kiln/cub", "max_rel_err");
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(n) * n), b(a.size());
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  for (const char* dtype : {"float32", "float16"}) {
    bool half = std::string(dtype) == "float16";
    size_t elem = half ? 2 : 4, bytes = a.size() * elem;
    DLDataType dl = {kDLFloat, static_cast<uint8_t>(half ? 16 : 32), 1};
    absl::StatusOr<runtime::Tensor> ta = runtime::Tensor::Empty({n, n}, dl), tb = runtime::Tensor::Empty({n, n}, dl);
    if (!ta.ok() || !tb.ok()) return Fail(ta.ok() ? tb.status() : ta.status());
    auto* pa = static_cast<uint8_t*>(ta->data());
    auto* pb = static_cast<uint8_t*>(tb->data());
    for (size_t i = 0; i < a.size(); ++i) {
      if (half) {
        uint16_t x = ToHalf(a[i]), y = ToHalf(b[i]);
        std::memcpy(pa + 2 * i, &x, 2);
        std::memcpy(pb + 2 * i, &y, 2);
      } else {
        std::memcpy(pa + 4 * i, &a[i], 4);
        std::memcpy(pb + 4 * i, &b[i], 4);
      }
    }
    std::string src = MatmulSource(n, n, n, dtype, dtype);
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
        Prepare(src, target, {vm::Value::Tensor(*ta), vm::Value::Tensor(*tb)});
    if (!machine.ok()) return Fail(machine.status());
    absl::Status st = (*machine)->InvokeStateful("main");
    if (!st.ok()) return Fail(st);
    absl::StatusOr<vm::Value> out = (*machine)->GetOutput("main");
    if (!out.ok()) return Fail(out.status());
    const auto* got = static_cast<const uint8_t*>(out->as_tensor().data());

    struct {
      double kiln_ms = 0, cublas_ms = 0, max_rel_err = 0;
    } r;
    if (has_cublas) {
      CUDABuffer da = *(*dev)->Alloc(bytes), db = *(*dev)->Alloc(bytes), dref = *(*dev)->Alloc(bytes);
      (*dev)->CopyToDevice(da, pa, bytes).IgnoreError();
      (*dev)->CopyToDevice(db, pb, bytes).IgnoreError();
      auto gemm = [&] {
        const float one = 1.0f, zero = 0.0f;
        // Row-major C = A B is column-major C^T = B^T A^T.
        int rc = half ? cublas.GemmEx(cublas.handle, 0, 0, n, n, n, &one, reinterpret_cast<void*>(db.ptr()), 2, n,
                                      reinterpret_cast<void*>(da.ptr()), 2, n, &zero,
                                      reinterpret_cast<void*>(dref.ptr()), 2, n, /*CUBLAS_COMPUTE_32F=*/68,
                                      /*CUBLAS_GEMM_DEFAULT=*/-1)
                      : cublas.Sgemm(cublas.handle, 0, 0, n, n, n, &one, reinterpret_cast<void*>(db.ptr()), n,
                                     reinterpret_cast<void*>(da.ptr()), n, &zero,
                                     reinterpret_cast<void*>(dref.ptr()), n);
        return rc == 0 ? absl::OkStatus() : absl::InternalError(absl::StrCat("cuBLAS error ", rc));
      };
      st = gemm();
      if (st.ok()) st = (*dev)->Synchronize();
      if (!st.ok()) return Fail(st);
      std::vector<uint8_t> want(bytes);
      (*dev)->CopyToHost(want.data(), dref, bytes).IgnoreError();
      for (size_t i = 0; i < a.size(); ++i) {
        float g, w;
        if (half) {
          uint16_t x, y;
          std::memcpy(&x, got + 2 * i, 2);
          std::memcpy(&y, &want[2 * i], 2);
          g = FromHalf(x), w = FromHalf(y);
        } else {
          std::memcpy(&g, got + 4 * i, 4);
          std::memcpy(&w, &want[4 * i], 4);
        }
        r.max_rel_err = std::max(r.max_rel_err, std::fabs(static_cast<double>(g) - w) / (std::fabs(w) + 1.0));
      }
      absl::StatusOr<double> ms = (*dev)->TimeMs([&] {
        for (int i = 0; i < repeat; ++i) {
          absl::Status s = gemm();
          if (!s.ok()) return s;
        }
        return absl::OkStatus();
      });
      r.cublas_ms = ms.ok() ? *ms / repeat : -1;
    }
    absl::StatusOr<double> kiln_s = TimeStateful(machine->get(), repeat, 3);
    if (!kiln_s.ok()) return Fail(kiln_s.status());
    r.kiln_ms = *kiln_s * 1e3;
    double flops = 2.0 * n * n * static_cast<double>(n);
    std::printf("%-8s %12.3f %12.2f %12.3f %12.2f %10.2f %12.2e\n", dtype, r.kiln_ms, flops / r.kiln_ms / 1e9,
                r.cublas_ms, has_cublas ? flops / r.cublas_ms / 1e9 : 0.0,
                has_cublas ? r.cublas_ms / r.kiln_ms : 0.0, r.max_rel_err);
    std::fflush(stdout);
  }

  // Elementwise: R.add of 2^26 float32 moves 3 x 256 MiB; a device-to-device copy reads and writes
  // each byte once.
  const int64_t numel = int64_t{1} << 26;
  DLDataType f32 = {kDLFloat, 32, 1};
  absl::StatusOr<runtime::Tensor> x = runtime::Tensor::Empty({numel}, f32), y = runtime::Tensor::Empty({numel}, f32);
  if (!x.ok() || !y.ok()) return Fail(x.ok() ? y.status() : x.status());
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> add =
      Prepare(absl::StrReplaceAll(kAdd, {{"NN", absl::StrCat(numel)}}), target,
              {vm::Value::Tensor(*x), vm::Value::Tensor(*y)});
  if (!add.ok()) return Fail(add.status());
  absl::StatusOr<double> add_s = TimeStateful(add->get(), repeat, 3);
  if (!add_s.ok()) return Fail(add_s.status());
  size_t bw_bytes = size_t{1} << 30;
  absl::StatusOr<CUDABuffer> src = (*dev)->Alloc(bw_bytes), dst = (*dev)->Alloc(bw_bytes);
  double copy_gbs = 0;
  if (src.ok() && dst.ok()) {
    absl::StatusOr<double> ms = (*dev)->TimeMs([&] { return (*dev)->CopyWithinDevice(dst->ptr(), src->ptr(), bw_bytes); });
    if (ms.ok()) copy_gbs = 2.0 * bw_bytes / *ms / 1e6;
  }
  double add_gbs = 3.0 * 4 * numel / *add_s / 1e9;
  std::printf("R.add of 2^26 float32: %.3f ms, %.0f GB/s (read + write); device copy of 1 GiB: %.0f GB/s; ratio %.2f\n",
              *add_s * 1e3, add_gbs, copy_gbs, copy_gbs > 0 ? add_gbs / copy_gbs : 0.0);
  if (has_cublas) cublas.Destroy(cublas.handle);
  return checks_ok ? 0 : 1;
}

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) { return kiln::Run(argc, argv); }
