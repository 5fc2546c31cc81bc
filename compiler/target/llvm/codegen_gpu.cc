#include "compiler/target/llvm/codegen_gpu.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/str_split.h"
#include "compiler/target/llvm/codegen_llvm_internal.h"
#include "compiler/tir/analysis/device_kernel.h"
#include "compiler/tir/analysis/scalable_vectors.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"

extern char** environ;

namespace kiln::codegen::llvm_internal {

// The CPU emitter with kernels, thread indices, shared memory and barriers for one GPU target.
class CodegenGPU : public CodegenLLVM {
 public:
  CodegenGPU(llvm::LLVMContext* ctx, llvm::TargetMachine* tm, bool nvptx) : CodegenLLVM(ctx, tm), nvptx_(nvptx) {}

  absl::Status RunKernels(const std::vector<PrimFunc>& kernels, LLVMModule* out) {
    module_ = std::make_unique<llvm::Module>("kiln_device", ctx_);
    module_->setTargetTriple(tm_->getTargetTriple().str());
    module_->setDataLayout(tm_->createDataLayout());
    InitTypes();
    for (const PrimFunc& f : kernels) {
      EmitKernel(f);
      if (!status_.ok()) return status_;
      FinishFunction();
      if (!status_.ok()) return status_;
      out->kernel_names.push_back(fname_);
    }
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(*module_, &os)) {
      return absl::InternalError(absl::StrCat("GPU codegen produced an invalid module: ", os.str()));
    }
    out->module = std::move(module_);
    return absl::OkStatus();
  }

 private:
  void EmitKernel(const PrimFunc& f) {
    fname_ = f->GetGlobalSymbol();
    if (fname_.empty()) {
      Fail("a kernel without a global_symbol");
      return;
    }
    std::vector<llvm::Type*> params;
    for (const Var& v : f->params) params.push_back(LType(v.dtype()));
    if (!status_.ok()) return;
    llvm::Function* fn = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                                llvm::Function::ExternalLinkage, fname_, module_.get());
    SetAttributes(fn);
    int64_t threads = ThreadsPerBlock(f->body);
    if (nvptx_) {
      llvm::NamedMDNode* md = module_->getOrInsertNamedMetadata("nvvm.annotations");
      auto annotate = [&](const char* key, int value) {
        md->addOperand(llvm::MDNode::get(ctx_, {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx_, key),
                                                llvm::ConstantAsMetadata::get(b_.getInt32(value))}));
      };
      annotate("kernel", 1);
      if (threads > 0) annotate("maxntidx", static_cast<int>(threads));
    } else {
      fn->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
      fn->addFnAttr("amdgpu-flat-work-group-size", absl::StrCat("1,", threads > 0 ? threads : 1024));
    }
    fs_ = FunctionState();
    fs_.fn = fn;
    emitted_.push_back(fn);
    vars_.clear();
    auto arg = fn->arg_begin();
    for (const Var& v : f->params) {
      arg->setName(v->name);
      vars_[v.get()] = &*arg++;
    }
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    VisitStmt(f->body);
    if (!b_.GetInsertBlock()->getTerminator()) b_.CreateRetVoid();
  }

  // The threads per block when every threadIdx extent is a constant (0 otherwise).
  static int64_t ThreadsPerBlock(const Stmt& body) {
    struct Finder : StmtExprVisitor {
      std::map<std::string, int64_t> extents;
      bool dynamic = false;
      void VisitStmt_(const AttrStmtNode* op) override {
        const auto* iv = op->node.as<IterVarNode>();
        if (op->attr_key == "thread_extent" && iv != nullptr && iv->thread_tag.rfind("threadIdx.", 0) == 0) {
          const auto* imm = op->value.as<IntImmNode>();
          if (imm == nullptr) {
            dynamic = true;
          } else {
            extents[iv->thread_tag] = imm->value;
          }
        }
        StmtExprVisitor::VisitStmt_(op);
      }
    } finder;
    finder.VisitStmt(body);
    if (finder.dynamic) return 0;
    int64_t n = 1;
    for (const auto& [tag, extent] : finder.extents) n *= extent;
    return n;
  }

  llvm::Value* ThreadIndex(bool block, int dim) {
    using llvm::Intrinsic::ID;
    static constexpr ID kNVPTX[2][3] = {
        {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
         llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
        {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
         llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z}};
    static constexpr ID kAMDGPU[2][3] = {
        {llvm::Intrinsic::amdgcn_workitem_id_x, llvm::Intrinsic::amdgcn_workitem_id_y,
         llvm::Intrinsic::amdgcn_workitem_id_z},
        {llvm::Intrinsic::amdgcn_workgroup_id_x, llvm::Intrinsic::amdgcn_workgroup_id_y,
         llvm::Intrinsic::amdgcn_workgroup_id_z}};
    ID id = (nvptx_ ? kNVPTX : kAMDGPU)[block ? 1 : 0][dim];
    return b_.CreateIntrinsic(id, {}, {});
  }

  void VisitStmt_(const AttrStmtNode* op) override {
    const auto* iv = op->node.as<IterVarNode>();
    if (op->attr_key != "thread_extent" || iv == nullptr) {
      if (op->attr_key == "virtual_thread") {
        Fail("virtual threads are not supported on GPU targets");
        return;
      }
      VisitStmt(op->body);
      return;
    }
    const std::string& tag = iv->thread_tag;
    bool block = tag.rfind("blockIdx.", 0) == 0;
    std::string axis = tag.substr(tag.find('.') + 1);
    if ((!block && tag.rfind("threadIdx.", 0) != 0) || axis.size() != 1 || axis[0] < 'x' || axis[0] > 'z') {
      Fail(absl::StrCat("unsupported thread tag ", tag));
      return;
    }
    llvm::Value* index = ThreadIndex(block, axis[0] - 'x');
    vars_[iv->var.get()] = b_.CreateIntCast(index, LType(iv->var.dtype()), /*isSigned=*/false);
    VisitStmt(op->body);
  }

  void VisitStmt_(const AllocBufferNode* op) override {
    const Buffer& b = op->buffer;
    std::optional<int64_t> count = tir::ConstantElementCount(b);
    if (!count) {
      Fail(absl::StrCat("allocation ", b->name, " has a non-constant size"));
      return;
    }
    std::string scope = b->scope();
    if (scope == "shared") {
      auto* ty = llvm::ArrayType::get(StorageType(b->dtype), std::max<int64_t>(*count, 1));
      auto* gv = new llvm::GlobalVariable(*module_, ty, false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(ty), absl::StrCat(fname_, "_", b->name), nullptr,
                                          llvm::GlobalValue::NotThreadLocal, /*AddressSpace=*/3);
      gv->setAlignment(llvm::Align(16));
      vars_[b->data.get()] = gv;
      VisitStmt(op->body);
      vars_.erase(b->data.get());
    } else if (scope == "local" || scope == "global") {
      // Per-thread scratch (a "global" allocation inside a kernel too, as in TVM's lowering).
      int64_t bytes = *count * (b->dtype.bits() == 1 ? 1 : b->dtype.StorageBytes());
      if (bytes > kStackLimit) {
        Fail(absl::StrCat("per-thread allocation ", b->name, " of ", bytes, " bytes is too large"));
        return;
      }
      CodegenLLVM::VisitStmt_(op);
    } else {
      Fail(absl::StrCat("allocation ", b->name, " in unsupported scope ", scope));
    }
  }

  void VisitStmt_(const AssertStmtNode*) override { Fail("assertions in device code are not supported"); }

  void VisitStmt_(const EvaluateNode* op) override {
    if (driver::ReturnedValue(op).defined()) {
      Fail("kernels cannot return a value");
      return;
    }
    CodegenLLVM::VisitStmt_(op);
  }

  llvm::Value* VisitExpr_(const CallNode* op) override {
    if (op->op.as<GlobalVarNode>() != nullptr) {
      Fail("calls between PrimFuncs in device code are not supported");
      return Undef(op->dtype);
    }
    const auto* o = op->op.as<OpNode>();
    if (o != nullptr && o->name == "tirx.tvm_storage_sync") {
      const auto* scope = op->args.empty() ? nullptr : op->args[0].as<StringImmNode>();
      std::string s = scope != nullptr ? scope->value : "?";
      if (s != "shared") {
        Fail(absl::StrCat("T.tvm_storage_sync(\"", s, "\") is not supported"));
        return Undef(op->dtype);
      }
      if (nvptx_) {
        b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
      } else {
        b_.CreateFence(llvm::AtomicOrdering::Release, ctx_.getOrInsertSyncScopeID("workgroup"));
        b_.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, {}, {});
        b_.CreateFence(llvm::AtomicOrdering::Acquire, ctx_.getOrInsertSyncScopeID("workgroup"));
      }
      return b_.getInt32(0);
    }
    if (o != nullptr && o->name == "tirx.tvm_warp_shuffle_down") return WarpShuffleDown(op);
    if (o != nullptr && o->name == "tirx.ptx_legacy.mma") return Mma(op);
    if (o != nullptr && (o->name == "tirx.call_extern" || o->name == "tirx.call_pure_extern" ||
                         o->name == "tirx.tvm_struct_get")) {
      Fail(absl::StrCat("T.", o->name.substr(5), " in device code is not supported"));
      return Undef(op->dtype);
    }
    return CodegenLLVM::VisitExpr_(op);
  }

  // tvm_warp_shuffle_down(mask, value, delta, width, warp_size) on NVPTX: shfl.sync.down of a
  // float32 or int32, clamped to the `width`-lane segment (PTX's c operand: (32 - width) << 8 | 31).
  llvm::Value* WarpShuffleDown(const CallNode* op) {
    const auto* width = op->args.size() == 5 ? op->args[3].as<IntImmNode>() : nullptr;
    if (!nvptx_ || width == nullptr || width->value < 1 || width->value > 32 ||
        !(op->dtype == DataType::Float(32) || op->dtype == DataType::Int(32))) {
      Fail("T.tvm_warp_shuffle_down needs nvptx, a constant width of at most 32 and a float32 or int32 value");
      return Undef(op->dtype);
    }
    llvm::Value* mask = b_.CreateIntCast(VisitExpr(op->args[0]), b_.getInt32Ty(), true);
    llvm::Value* value = VisitExpr(op->args[1]);
    llvm::Value* delta = b_.CreateIntCast(VisitExpr(op->args[2]), b_.getInt32Ty(), true);
    llvm::Value* clamp = b_.getInt32(static_cast<uint32_t>((32 - width->value) << 8 | 31));
    auto id = op->dtype.is_float() ? llvm::Intrinsic::nvvm_shfl_sync_down_f32 : llvm::Intrinsic::nvvm_shfl_sync_down_i32;
    return b_.CreateIntrinsic(id, {}, {mask, value, delta, clamp});
  }

  // T.ptx_legacy.mma(shape, a_layout, b_layout, a_dtype, b_dtype, c_dtype, a, a_offset, b,
  // b_offset, c, c_offset, saturate) on NVPTX, m16n8k16 row.col fp16 x fp16 + fp32 only: the
  // lane's A (8 halves), B (4) and C (4 floats) fragment elements at a, b, c (element offsets)
  // into llvm.nvvm.mma.m16n8k16.row.col.f32.f32 (D and C float32; the operands are <2 x half>,
  // elements 2j and 2j + 1 in register j), D stored back over C.
  llvm::Value* Mma(const CallNode* op) {
    static const char* const kForm[] = {"m16n8k16", "row", "col", "fp16", "fp16", "fp32"};
    const auto* saturate = op->args.size() == 13 ? op->args[12].as<IntImmNode>() : nullptr;
    bool supported = nvptx_ && saturate != nullptr && saturate->value == 0;
    for (int i = 0; supported && i < 6; ++i) {
      const auto* s = op->args[i].as<StringImmNode>();
      supported = s != nullptr && s->value == kForm[i];
    }
    if (!supported) {
      Fail("T.ptx_legacy.mma needs nvptx and supports only m16n8k16, row.col, fp16 x fp16 + fp32 without saturation");
      return b_.getInt32(0);
    }
    llvm::Type* half = b_.getHalfTy();
    auto at = [&](int i, llvm::Type* elem) {
      llvm::Value* off = b_.CreateIntCast(VisitExpr(op->args[i + 1]), i64_, /*isSigned=*/true);
      return b_.CreateInBoundsGEP(elem, VisitExpr(op->args[i]), off);
    };
    llvm::Value *a = at(6, half), *b = at(8, half), *c = at(10, f32_);
    std::vector<llvm::Value*> args;
    auto pairs = [&](llvm::Value* p, int n) {
      for (int j = 0; j < n; ++j) {
        llvm::Value* v = llvm::UndefValue::get(llvm::FixedVectorType::get(half, 2));
        for (int h = 0; h < 2; ++h) {
          llvm::Value* x = b_.CreateLoad(half, b_.CreateConstInBoundsGEP1_64(half, p, 2 * j + h));
          v = b_.CreateInsertElement(v, x, b_.getInt32(h));
        }
        args.push_back(v);
      }
    };
    pairs(a, 4);
    pairs(b, 2);
    for (int j = 0; j < 4; ++j) args.push_back(b_.CreateLoad(f32_, b_.CreateConstInBoundsGEP1_64(f32_, c, j)));
    llvm::Value* d = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32, {}, args);
    for (unsigned j = 0; j < 4; ++j) b_.CreateStore(b_.CreateExtractValue(d, {j}), b_.CreateConstInBoundsGEP1_64(f32_, c, j));
    return b_.getInt32(0);
  }

  bool nvptx_;
};

}  // namespace kiln::codegen::llvm_internal

namespace kiln::codegen {
namespace {

// Math the NVPTX backend cannot lower (LLVM intrinsics it expands to libm calls, and the libm
// calls the emitter makes itself), renamed to libdevice's __nv_* functions.
absl::Status UseLibdevice(llvm::Module* m, bool* needed) {
  static const std::set<std::string> kIntrinsics = {"exp", "exp2", "log", "log2", "log10", "sin", "cos", "pow"};
  static const std::set<std::string> kLibm = {"tan",  "sinh",  "cosh",  "tanh", "asin",  "acos",  "atan",
                                              "asinh", "acosh", "atanh", "erf",  "log1p", "expm1", "atan2",
                                              "hypot", "nextafter", "ldexp"};
  *needed = false;
  std::vector<llvm::Function*> decls;
  for (llvm::Function& f : *m) {
    if (f.isDeclaration()) decls.push_back(&f);
  }
  for (llvm::Function* f : decls) {
    std::string base;
    llvm::Type* ret = f->getReturnType();
    if (f->isIntrinsic()) {
      std::string name = f->getName().str();  // llvm.exp.f32
      std::vector<std::string> parts = absl::StrSplit(name, '.');
      if (parts.size() != 3 || !kIntrinsics.count(parts[1])) continue;
      if (!ret->isFloatTy() && !ret->isDoubleTy()) {
        return absl::InvalidArgumentError(
            absl::StrCat("NVPTX codegen: ", name, " is not supported (math on float32/float64 scalars only)"));
      }
      base = parts[1];
    } else {
      std::string name = f->getName().str();
      std::string stem = !name.empty() && name.back() == 'f' ? name.substr(0, name.size() - 1) : name;
      if (!kLibm.count(stem)) continue;
      base = stem;
    }
    std::string nv = absl::StrCat("__nv_", base, ret->isFloatTy() ? "f" : "");
    llvm::FunctionCallee callee = m->getOrInsertFunction(nv, f->getFunctionType());
    f->replaceAllUsesWith(callee.getCallee());
    f->eraseFromParent();
    *needed = true;
  }
  return absl::OkStatus();
}

absl::Status LinkLibdevice(llvm::Module* m) {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("KILN_LIBDEVICE"); env != nullptr && *env != '\0') paths.push_back(env);
  paths.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  for (const std::string& path : paths) {
    if (access(path.c_str(), R_OK) != 0) continue;
    llvm::SMDiagnostic err;
    std::unique_ptr<llvm::Module> lib = llvm::parseIRFile(path, err, m->getContext());
    if (lib == nullptr) return absl::InternalError(absl::StrCat("cannot read libdevice ", path, ": ", err.getMessage().str()));
    lib->setTargetTriple(m->getTargetTriple());
    lib->setDataLayout(m->getDataLayout());
    if (llvm::Linker::linkModules(*m, std::move(lib), llvm::Linker::LinkOnlyNeeded)) {
      return absl::InternalError(absl::StrCat("linking libdevice ", path, " failed"));
    }
    // Only the kernels are entry points: the rest may be inlined and dropped.
    for (llvm::Function& f : *m) {
      if (!f.isDeclaration() && f.getName().startswith("__nv_")) f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      "NVPTX math functions need libdevice (the CUDA toolkit's nvvm/libdevice/libdevice.10.bc); set KILN_LIBDEVICE");
}

// Every function a kernel still calls must be defined or an intrinsic the backend lowers.
absl::Status CheckNoExternalCalls(const llvm::Module& m, const GPUTarget& target) {
  for (const llvm::Function& f : m) {
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          target.ToString(), ": the kernels call ", f.getName().str(),
          target.kind == GPUTarget::Kind::kROCm ? ", which needs the ROCm device libraries (not supported)"
                                                : ", which has no device implementation"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const GPUTarget& target) {
  LLVMTarget t;
  t.triple = target.triple();
  t.cpu = target.cpu;
  t.opt_level = 3;
  return CreateTargetMachine(t);
}

// Emitted, math resolved, checked and optimized.
absl::StatusOr<LLVMModule> CompileModule(const std::vector<ir::PrimFunc>& kernels, const GPUTarget& target,
                                         llvm::TargetMachine* tm) {
  absl::Status scalable = tir::RejectScalableVectors(
      kernels, target.kind == GPUTarget::Kind::kNVPTX ? "the NVPTX backend" : "the ROCm backend");
  if (!scalable.ok()) return scalable;
  LLVMModule out;
  out.context = std::make_unique<llvm::LLVMContext>();
  {
    llvm_internal::CodegenGPU emitter(out.context.get(), tm, target.kind == GPUTarget::Kind::kNVPTX);
    absl::Status st = emitter.RunKernels(kernels, &out);
    if (!st.ok()) return st;
  }
  if (target.kind == GPUTarget::Kind::kNVPTX) {
    bool needed = false;
    absl::Status st = UseLibdevice(out.module.get(), &needed);
    if (st.ok() && needed) st = LinkLibdevice(out.module.get());
    if (!st.ok()) return st;
  }
  // After optimization: libdevice's __nvvm_reflect calls are folded by the NVPTX pipeline.
  OptimizeLLVM(out.module.get(), tm, 3);
  absl::Status st = CheckNoExternalCalls(*out.module, target);
  if (!st.ok()) return st;
  return out;
}

// Runs argv without a shell; -1 if the program cannot be started. Its output goes to `log`.
int RunTool(const std::vector<std::string>& argv, const std::string& log_path, std::string* log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  std::ifstream in(log_path);
  std::stringstream text;
  text << in.rdbuf();
  *log = text.str();
  std::remove(log_path.c_str());
  if (!WIFEXITED(status)) return -1;
  return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
}

// A relocatable AMDGPU object -> the shared ELF the ROCm runtime loads (an HSA code object).
absl::StatusOr<std::string> LinkCodeObject(const std::string& object) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/kiln-hsaco-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) return absl::InternalError("cannot create a temporary directory for ld.lld");
  std::string obj = dir + "/kernels.o", out = dir + "/kernels.hsaco";
  {
    std::ofstream f(obj, std::ios::binary);
    f << object;
  }
  std::vector<std::string> linkers;
  if (const char* env = std::getenv("KILN_LLD"); env != nullptr && *env != '\0') linkers.push_back(env);
  linkers.push_back("ld.lld-16");
  linkers.push_back("ld.lld");
  std::string log;
  int rc = -1;
  std::string used;
  for (const std::string& linker : linkers) {
    rc = RunTool({linker, "-shared", "-o", out, obj}, dir + "/ld.log", &log);
    used = linker;
    if (rc != -1) break;
  }
  std::string bytes;
  if (rc == 0) {
    std::ifstream in(out, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    bytes = s.str();
  }
  std::remove(obj.c_str());
  std::remove(out.c_str());
  rmdir(dir.c_str());
  if (rc == -1) return absl::FailedPreconditionError("the rocm target needs ld.lld-16 or ld.lld on PATH (or KILN_LLD)");
  if (rc != 0) return absl::InternalError(absl::StrCat("linking the HSA code object failed (", used, "):\n", log));
  return bytes;
}

}  // namespace

std::string GPUTarget::ToString() const {
  return absl::StrCat(kind == Kind::kNVPTX ? "nvptx" : "rocm", " -mcpu=", cpu);
}

absl::StatusOr<GPUTarget> ParseGPUTarget(absl::string_view spec) {
  std::vector<absl::string_view> words = absl::StrSplit(spec, ' ', absl::SkipEmpty());
  GPUTarget t;
  if (!words.empty() && words[0] == "nvptx") {
    t.kind = GPUTarget::Kind::kNVPTX;
    t.cpu = "sm_90";
  } else if (!words.empty() && words[0] == "rocm") {
    t.kind = GPUTarget::Kind::kROCm;
    t.cpu = "gfx90a";
  } else {
    return absl::InvalidArgumentError(absl::StrCat("not an nvptx or rocm target: \"", spec, "\""));
  }
  for (size_t i = 1; i < words.size(); ++i) {
    absl::string_view w = words[i];
    if (!absl::ConsumePrefix(&w, "-mcpu=")) {
      return absl::InvalidArgumentError(absl::StrCat("unknown ", words[0], " target option \"", words[i], "\""));
    }
    t.cpu = std::string(w);
  }
  InitializeLLVM();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple(), error);
  if (target == nullptr) return absl::FailedPreconditionError(absl::StrCat("LLVM has no ", t.triple(), " backend: ", error));
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(t.triple(), "", ""));
  if (sti == nullptr || !sti->isCPUStringValid(t.cpu)) {
    return absl::InvalidArgumentError(absl::StrCat("-mcpu=", t.cpu, " is not a ", words[0], " processor LLVM 16 knows"));
  }
  return t;
}

absl::StatusOr<std::string> EmitGPULLVMAssembly(const std::vector<ir::PrimFunc>& kernels, const GPUTarget& target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = MakeTargetMachine(target);
  if (!tm.ok()) return tm.status();
  absl::StatusOr<LLVMModule> m = CompileModule(kernels, target, tm->get());
  if (!m.ok()) return m.status();
  std::string text;
  llvm::raw_string_ostream os(text);
  m->module->print(os, nullptr);
  return os.str();
}

absl::StatusOr<std::string> CompileGPUKernels(const std::vector<ir::PrimFunc>& kernels, const GPUTarget& target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = MakeTargetMachine(target);
  if (!tm.ok()) return tm.status();
  absl::StatusOr<LLVMModule> m = CompileModule(kernels, target, tm->get());
  if (!m.ok()) return m.status();
  bool nvptx = target.kind == GPUTarget::Kind::kNVPTX;
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if ((*tm)->addPassesToEmitFile(codegen, os, nullptr, nvptx ? llvm::CGFT_AssemblyFile : llvm::CGFT_ObjectFile)) {
    return absl::InternalError(absl::StrCat(target.ToString(), ": LLVM cannot emit code for it"));
  }
  codegen.run(*m->module);
  std::string code(buffer.begin(), buffer.end());
  if (nvptx) return code;
  return LinkCodeObject(code);
}

}  // namespace kiln::codegen
