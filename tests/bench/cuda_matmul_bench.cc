// kiln's CUDA matmul against cuBLAS, measured in the same run on the same device with CUDA events:
// C = A B for square float32 and float16 matrices (float16 accumulates in float32, as cuBLAS's
// GemmEx with CUBLAS_COMPUTE_32F does). The kiln kernel is a hand-scheduled TIR matmul (64x64
// block tiles through shared memory, 4x4 outputs per thread) compiled by the cuda target (NVRTC),
// or by nvptx with --target nvptx. Also reports device-to-device copy bandwidth, the ceiling of
// elementwise kernels. Its output is checked against cuBLAS's before timing.
//
// Without a GPU (or without the driver) it prints "no CUDA device: <reason>" and exits 0;
// without libcublas it times kiln alone.
//
//   bazel run -c opt //tests/bench:cuda_matmul_bench -- [--n 4096] [--repeat 20] [--target nvptx]
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/driver/device_build.h"
#include "compiler/tir/functor.h"
#include "compiler/script/script.h"
#include "runtime/device/cuda/cuda_device.h"

namespace kiln {
namespace {

using runtime::cuda::CUDABuffer;
using runtime::cuda::CUDADevice;
using runtime::cuda::CUDAModule;
using runtime::cuda::KernelArg;

// N x N matmul, N a multiple of 64. Block (bx, by) computes C[by*64 : +64, bx*64 : +64]; thread
// (tx, ty) the 4x4 outputs at rows ty*4.., cols tx*4..; each k-step stages a 64x16 tile of A
// (transposed) and a 16x64 tile of B in shared memory, 4 elements per thread each.
constexpr char kMatmul[] = R"(
@T.prim_func
def main(A: T.Buffer((NN, NN), "DTYPE"), B: T.Buffer((NN, NN), "DTYPE"), C: T.Buffer((NN, NN), "DTYPE")):
    by = T.launch_thread("blockIdx.y", NB)
    bx = T.launch_thread("blockIdx.x", NB)
    As = T.alloc_shared((16, 64), "float32")
    Bs = T.alloc_shared((16, 64), "float32")
    ty = T.launch_thread("threadIdx.y", 16)
    tx = T.launch_thread("threadIdx.x", 16)
    acc = T.alloc_local((16,), "float32")
    for i in T.unroll(16):
        acc[i] = T.float32(0)
    for ko in range(NK):
        for l in T.unroll(4):
            As[(l * 256 + ty * 16 + tx) % 16, (l * 256 + ty * 16 + tx) // 16] = T.Cast("float32", A[by * 64 + (l * 256 + ty * 16 + tx) // 16, ko * 16 + (l * 256 + ty * 16 + tx) % 16])
            Bs[(l * 256 + ty * 16 + tx) // 64, (l * 256 + ty * 16 + tx) % 64] = T.Cast("float32", B[ko * 16 + (l * 256 + ty * 16 + tx) // 64, bx * 64 + (l * 256 + ty * 16 + tx) % 64])
        T.tvm_storage_sync("shared")
        for k in T.unroll(16):
            for i in T.unroll(4):
                for j in T.unroll(4):
                    acc[i * 4 + j] = acc[i * 4 + j] + As[k, ty * 4 + i] * Bs[k, tx + j * 16]
        T.tvm_storage_sync("shared")
    for i in T.unroll(4):
        for j in T.unroll(4):
            C[by * 64 + ty * 4 + i, bx * 64 + tx + j * 16] = T.Cast("DTYPE", acc[i * 4 + j])
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

// The names of the variables the host code passes to the launch of `kernel` (its params, in order).
std::vector<std::string> LaunchArgNames(const ir::IRModule& host, const std::string& kernel) {
  struct Finder : ir::StmtExprVisitor {
    std::string kernel;
    std::vector<std::string> names;
    void VisitExpr_(const ir::CallNode* op) override {
      const auto* callee = op->args.empty() ? nullptr : op->args[0].as<ir::StringImmNode>();
      if (callee != nullptr && callee->value == kernel && names.empty()) {
        for (size_t i = 1; i < op->args.size(); ++i) {
          if (const auto* v = op->args[i].as<ir::VarNode>(); v != nullptr && v->dtype.is_handle()) names.push_back(v->name);
        }
      }
      ir::StmtExprVisitor::VisitExpr_(op);
    }
  } finder;
  finder.kernel = kernel;
  for (const auto& [gv, f] : host.Functions()) {
    if (const auto* pf = f.as<ir::PrimFuncNode>()) finder.VisitStmt(pf->body);
  }
  return finder.names;
}

struct Result {
  double kiln_ms = 0, cublas_ms = 0, max_rel_err = 0;
  bool has_cublas = false;
};

int Run(int argc, char** argv) {
  int n = 4096, repeat = 20;
  std::string backend = "cuda";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--n") n = std::atoi(argv[i + 1]);
    if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
    if (a == "--target") backend = argv[i + 1];
  }
  if (n <= 0 || n % 64 != 0) {
    std::fprintf(stderr, "cuda_matmul_bench: --n must be a positive multiple of 64\n");
    return 2;
  }
  absl::StatusOr<std::unique_ptr<CUDADevice>> dev = CUDADevice::Open();
  if (!dev.ok()) {
    std::printf("no CUDA device: %s\n", std::string(dev.status().message()).c_str());
    return 0;
  }
  std::string arch = absl::StrCat("sm_", (*dev)->compute_capability());
  std::string target = backend == "nvptx" ? "nvptx -mcpu=" + arch : "cuda -arch=" + arch;
  CuBLAS cublas;
  std::string no_cublas;
  bool has_cublas = LoadCuBLAS(&cublas, &no_cublas);
  std::printf("cuda_matmul_bench on %s: kiln (%s) vs %s, C = A B, %d x %d, %d timed repeats\n",
              (*dev)->description().c_str(), target.c_str(), has_cublas ? "cuBLAS" : no_cublas.c_str(), n, n, repeat);
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
    std::string src = absl::StrReplaceAll(
        kMatmul, {{"NN", absl::StrCat(n)}, {"NB", absl::StrCat(n / 64)}, {"NK", absl::StrCat(n / 16)}, {"DTYPE", dtype}});
    absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(src, "matmul.py");
    if (!parsed.ok()) {
      std::fprintf(stderr, "cuda_matmul_bench: %s\n", std::string(parsed.status().message()).c_str());
      return 1;
    }
    ir::IRModule mod = ir::IRModule::Make();
    mod.Add(ir::GlobalVar("main"), ir::Downcast<ir::PrimFunc>(*parsed));
    absl::StatusOr<driver::DeviceLowered> lowered = driver::LowerForDevice(mod, target);
    if (!lowered.ok()) {
      std::fprintf(stderr, "cuda_matmul_bench: %s\n", std::string(lowered.status().message()).c_str());
      return 1;
    }
    absl::StatusOr<std::unique_ptr<CUDAModule>> module = (*dev)->LoadModule(lowered->blob.code);
    if (!module.ok()) {
      std::fprintf(stderr, "cuda_matmul_bench: %s\n", std::string(module.status().message()).c_str());
      return 1;
    }
    std::vector<uint8_t> ha(bytes), hb(bytes);
    for (size_t i = 0; i < a.size(); ++i) {
      if (half) {
        uint16_t x = ToHalf(a[i]), y = ToHalf(b[i]);
        std::memcpy(&ha[2 * i], &x, 2);
        std::memcpy(&hb[2 * i], &y, 2);
      } else {
        std::memcpy(&ha[4 * i], &a[i], 4);
        std::memcpy(&hb[4 * i], &b[i], 4);
      }
    }
    CUDABuffer da = *(*dev)->Alloc(bytes), db = *(*dev)->Alloc(bytes), dc = *(*dev)->Alloc(bytes),
               dref = *(*dev)->Alloc(bytes);
    (*dev)->CopyToDevice(da, ha.data(), bytes).IgnoreError();
    (*dev)->CopyToDevice(db, hb.data(), bytes).IgnoreError();
    const std::string& kernel = lowered->blob.kernels.at(0).name;
    // The kernel's buffer params in SplitHostDevice's order: the data vars its launch passes.
    std::vector<std::string> order = LaunchArgNames(lowered->host, kernel);
    std::vector<KernelArg> args;
    for (const std::string& name : order) {
      const CUDABuffer& buf = name[0] == 'A' ? da : name[0] == 'B' ? db : dc;
      args.push_back(KernelArg::Of(buf.ptr()));
    }
    if (args.size() != 3) {
      std::fprintf(stderr, "cuda_matmul_bench: unexpected launch of %s with %zu buffers\n", kernel.c_str(), args.size());
      return 1;
    }
    auto launch = [&] {
      return (*module)->Launch(kernel, args, {static_cast<uint32_t>(n / 64), static_cast<uint32_t>(n / 64), 1},
                               {16, 16, 1});
    };
    auto gemm = [&] {
      const float one = 1.0f, zero = 0.0f;
      // Row-major C = A B is column-major C^T = B^T A^T.
      int rc = half ? cublas.GemmEx(cublas.handle, 0, 0, n, n, n, &one, reinterpret_cast<void*>(db.ptr()), 2, n,
                                    reinterpret_cast<void*>(da.ptr()), 2, n, &zero,
                                    reinterpret_cast<void*>(dref.ptr()), 2, n, /*CUBLAS_COMPUTE_32F=*/68,
                                    /*CUBLAS_GEMM_DEFAULT=*/-1)
                    : cublas.Sgemm(cublas.handle, 0, 0, n, n, n, &one, reinterpret_cast<void*>(db.ptr()), n,
                                   reinterpret_cast<void*>(da.ptr()), n, &zero, reinterpret_cast<void*>(dref.ptr()), n);
      return rc == 0 ? absl::OkStatus() : absl::InternalError(absl::StrCat("cuBLAS error ", rc));
    };
    Result r;
    r.has_cublas = has_cublas;
    absl::Status st = launch();
    if (st.ok() && has_cublas) st = gemm();
    if (st.ok()) st = (*dev)->Synchronize();
    if (!st.ok()) {
      std::fprintf(stderr, "cuda_matmul_bench: %s\n", std::string(st.message()).c_str());
      return 1;
    }
    if (has_cublas) {
      std::vector<uint8_t> got(bytes), want(bytes);
      (*dev)->CopyToHost(got.data(), dc, bytes).IgnoreError();
      (*dev)->CopyToHost(want.data(), dref, bytes).IgnoreError();
      for (size_t i = 0; i < a.size(); ++i) {
        float g, w;
        if (half) {
          uint16_t x, y;
          std::memcpy(&x, &got[2 * i], 2);
          std::memcpy(&y, &want[2 * i], 2);
          g = FromHalf(x), w = FromHalf(y);
        } else {
          std::memcpy(&g, &got[4 * i], 4);
          std::memcpy(&w, &want[4 * i], 4);
        }
        r.max_rel_err = std::max(r.max_rel_err, std::fabs(static_cast<double>(g) - w) / (std::fabs(w) + 1.0));
      }
    }
    absl::StatusOr<double> kiln_ms = (*dev)->TimeMs([&] {
      for (int i = 0; i < repeat; ++i) {
        absl::Status s = launch();
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    });
    r.kiln_ms = kiln_ms.ok() ? *kiln_ms / repeat : -1;
    if (has_cublas) {
      absl::StatusOr<double> ms = (*dev)->TimeMs([&] {
        for (int i = 0; i < repeat; ++i) {
          absl::Status s = gemm();
          if (!s.ok()) return s;
        }
        return absl::OkStatus();
      });
      r.cublas_ms = ms.ok() ? *ms / repeat : -1;
    }
    double flops = 2.0 * n * n * static_cast<double>(n);
    std::printf("%-8s %12.3f %12.2f %12.3f %12.2f %10.2f %12.2e\n", dtype, r.kiln_ms, flops / r.kiln_ms / 1e9,
                r.cublas_ms, has_cublas ? flops / r.cublas_ms / 1e9 : 0.0,
                has_cublas ? r.cublas_ms / r.kiln_ms : 0.0, r.max_rel_err);
  }
  // Device memory bandwidth: a device-to-device copy reads and writes each byte once.
  size_t bw_bytes = size_t{1} << 30;
  absl::StatusOr<CUDABuffer> src = (*dev)->Alloc(bw_bytes), dst = (*dev)->Alloc(bw_bytes);
  if (src.ok() && dst.ok()) {
    absl::StatusOr<double> ms = (*dev)->TimeMs([&] { return (*dev)->CopyWithinDevice(dst->ptr(), src->ptr(), bw_bytes); });
    if (ms.ok()) std::printf("device memory: copy of 1 GiB at %.0f GB/s (read + write)\n", 2.0 * bw_bytes / *ms / 1e6);
  }
  if (has_cublas) cublas.Destroy(cublas.handle);
  return 0;
}

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) { return kiln::Run(argc, argv); }
