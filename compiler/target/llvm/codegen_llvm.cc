// Lowered TIR -> LLVM IR. One llvm::Function per PrimFunc; packed entries get the kernel ABI
// signature (runtime/kernel_abi.h).
//
// Choices worth knowing:
// - TIR scalars are SSA values: LetStmt/Let bind an llvm::Value, a serial loop var is a phi. Mutable
//   state only lives in buffers, so no allocas are needed for variables.
// - bool is i1 in registers and i8 in memory; bfloat16 computes in float and is stored as i16
//   (rounded to nearest even after each operation, as the C backend does); float16 is LLVM half.
// - Integer add/sub/mul carry no nsw/nuw flags: TIR wraps on overflow.
// - Vector expressions (Ramp, Broadcast, Shuffle, vector loads/stores) become LLVM vector types; a
//   stride-1 Ramp index is one contiguous vector access, any other vector index a gather/scatter.
// - Temporaries: constant sizes up to kStackLimit are entry-block allocas (64-byte aligned); larger
//   ones are aligned_alloc'ed, and every exit path (return, failed assert, break) frees those live
//   at that point, so no per-call arena is needed.
// - A failed AssertStmt writes {kKilnErrorMessage, "Kind: message"} to the result slot and returns
//   -1, with the message spelled exactly as the C backend spells it.
// - A packed entry's compute_scope (the body after MakePackedAPI's checks) is outlined into an
//   internal "<name>_compute_" function, and the entry is optnone (see EmitComputeScope).
// - Parallel loops are outlined into a KilnParallelBody whose captured variables travel in a
//   closure struct, and run through env->parallel_for (serially when `self` is NULL); a parallel
//   loop nested in one runs serially.
#include "compiler/target/llvm/codegen_llvm.h"

#include <map>
#include <set>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/ir/functor.h"
#include "compiler/tir/analysis/free_vars.h"
#include "compiler/tir/op/builtin.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "runtime/kernel_abi.h"

namespace kiln::codegen {
namespace {

using namespace ir;  // NOLINT

constexpr int64_t kStackLimit = 16 * 1024;
constexpr unsigned kTempAlign = 64;

// The libm name of a float math function for float32 (`f` suffix) or float64.
std::string LibmName(const std::string& base, llvm::Type* scalar) {
  return scalar->isDoubleTy() ? base : base + "f";
}

bool HasLoadOrCall(const PrimExpr& e) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitExpr_(const BufferLoadNode*) override { found = true; }
    void VisitExpr_(const CallNode*) override { found = true; }
  } finder;
  finder.VisitExpr(e);
  return finder.found;
}

class CodegenLLVM : public ExprFunctor<llvm::Value*(const PrimExpr&)>, public StmtFunctor<void(const Stmt&)> {
 public:
  CodegenLLVM(llvm::LLVMContext* ctx, llvm::TargetMachine* tm) : ctx_(*ctx), tm_(tm), b_(*ctx) {}

  // Fills out->module and out->kernel_names (out->context is the context this emitter uses).
  absl::Status Run(const IRModule& mod, LLVMModule* out) {
    module_ = std::make_unique<llvm::Module>("kiln", ctx_);
    module_->setTargetTriple(tm_->getTargetTriple().str());
    module_->setDataLayout(tm_->createDataLayout());
    InitTypes();
    std::vector<std::string> kernels;
    std::vector<std::pair<std::string, const PrimFuncNode*>> funcs;
    for (const auto& [gv, func] : mod.Functions()) {
      const auto* f = func.as<PrimFuncNode>();
      if (f == nullptr) continue;  // Relax functions are compiled by the VM codegen
      funcs.emplace_back(gv->name, f);
      Declare(gv->name, f);
      if (driver::IsPackedEntry(f)) kernels.push_back(driver::LoweredSymbol(gv->name, f));
    }
    for (const auto& [name, f] : funcs) {
      EmitFunction(name, f);
      if (!status_.ok()) return status_;
      FinishFunction();
      if (!status_.ok()) return status_;
    }
    EmitKernelTable(kernels);
    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(*module_, &os)) {
      return absl::InternalError(absl::StrCat("LLVM codegen produced an invalid module: ", os.str()));
    }
    out->module = std::move(module_);
    out->kernel_names = std::move(kernels);
    return absl::OkStatus();
  }

 private:
  // Per-function emission state; saved and restored around an outlined parallel body.
  struct LoopTargets {
    llvm::BasicBlock* break_to;
    llvm::BasicBlock* continue_to;
    size_t heap_depth;  // heap_.size() at loop entry: break/continue free what came after
  };
  struct FunctionState {
    llvm::Function* fn = nullptr;
    llvm::Value* self = nullptr;    // const KilnKernelEnv* (or NULL)
    llvm::Value* result = nullptr;  // KilnAny* result slot
    bool packed = false;
    bool in_parallel = false;
    DataType ret_dtype;            // non-packed functions
    std::vector<llvm::Value*> heap;  // live aligned_alloc'ed temporaries, innermost last
    std::vector<LoopTargets> loops;
    int outlined = 0;
    llvm::BasicBlock* fail_block = nullptr;  // the shared failed-assert exit (see SharedFailBlock)
    llvm::PHINode* fail_message = nullptr;
  };

  void InitTypes() {
    i1_ = b_.getInt1Ty();
    i8_ = b_.getInt8Ty();
    i16_ = b_.getInt16Ty();
    i32_ = b_.getInt32Ty();
    i64_ = b_.getInt64Ty();
    ptr_ = llvm::PointerType::getUnqual(ctx_);
    f32_ = b_.getFloatTy();
    // The C layouts of kernel_abi.h and dlpack.h; LLVM's data layout places the fields.
    any_ty_ = llvm::StructType::create(ctx_, {i32_, i32_, i64_}, "KilnAny");
    tensor_ty_ = llvm::StructType::create(
        ctx_,
        {ptr_, llvm::StructType::get(ctx_, {i32_, i32_}), i32_, llvm::StructType::get(ctx_, {i8_, i8_, i16_}), ptr_,
         ptr_, i64_},
        "DLTensor");
    env_ty_ = llvm::StructType::create(ctx_, {ptr_, ptr_}, "KilnKernelEnv");
    kernel_fn_ty_ = llvm::FunctionType::get(i32_, {ptr_, ptr_, i32_, ptr_}, false);
    body_fn_ty_ = llvm::FunctionType::get(i32_, {i64_, i64_, ptr_}, false);
    parallel_for_ty_ = llvm::FunctionType::get(i32_, {ptr_, i64_, ptr_, ptr_}, false);
  }

  void Fail(const std::string& msg) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("LLVM codegen (", fname_, "): ", msg));
  }

  // ---------------- types ----------------
  // The register type of a dtype (bool = i1, bfloat16 computes in float).
  llvm::Type* LType(DataType t) {
    llvm::Type* s = nullptr;
    if (t.is_void()) return b_.getVoidTy();
    if (t.is_handle()) {
      s = ptr_;
    } else if (t.is_bool()) {
      s = i1_;
    } else if (t.is_int() || t.is_uint()) {
      s = b_.getIntNTy(t.bits());
    } else if (t.is_float() && t.bits() == 16) {
      s = b_.getHalfTy();
    } else if (t.is_float() && t.bits() == 32) {
      s = f32_;
    } else if (t.is_float() && t.bits() == 64) {
      s = b_.getDoubleTy();
    } else if (t.is_bfloat() && t.bits() == 16) {
      s = f32_;
    } else {
      Fail(absl::StrCat("unsupported dtype ", t.ToString()));
      s = i32_;
    }
    return t.lanes() > 1 ? llvm::FixedVectorType::get(s, t.lanes()) : s;
  }
  // The in-memory element type of a buffer dtype (bool = i8, bfloat16 = i16).
  llvm::Type* StorageType(DataType t) {
    DataType e = t.element_of();
    llvm::Type* s = e.is_bool() ? i8_ : e.is_bfloat() ? i16_ : LType(e);
    return t.lanes() > 1 ? llvm::FixedVectorType::get(s, t.lanes()) : s;
  }
  llvm::Type* WithLanes(llvm::Type* scalar, int lanes) {
    return lanes > 1 ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
  }
  static int Lanes(llvm::Value* v) {
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
    return vt ? static_cast<int>(vt->getNumElements()) : 1;
  }
  // Splats a scalar to `lanes` (no-op for lanes == 1 or an already-vector value).
  llvm::Value* Splat(llvm::Value* v, int lanes) {
    if (lanes <= 1 || v->getType()->isVectorTy()) return v;
    return b_.CreateVectorSplat(lanes, v);
  }

  // bfloat16 <-> float, bit-exact with the C backend's kiln_bf16_to_f32 / kiln_f32_to_bf16.
  llvm::Value* BF16ToF32(llvm::Value* bits) {
    int lanes = Lanes(bits);
    llvm::Value* w = b_.CreateShl(b_.CreateZExt(bits, WithLanes(i32_, lanes)), Splat(b_.getInt32(16), lanes));
    return b_.CreateBitCast(w, WithLanes(f32_, lanes));
  }
  llvm::Value* F32ToBF16(llvm::Value* f) {
    int lanes = Lanes(f);
    auto c = [&](uint32_t v) { return Splat(b_.getInt32(v), lanes); };
    llvm::Value* u = b_.CreateBitCast(f, WithLanes(i32_, lanes));
    llvm::Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(u, c(0x7fffffffu)), c(0x7f800000u));
    llvm::Value* quiet = b_.CreateOr(b_.CreateLShr(u, c(16)), c(0x40));
    llvm::Value* bias = b_.CreateAdd(c(0x7fffu), b_.CreateAnd(b_.CreateLShr(u, c(16)), c(1)));
    llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(u, bias), c(16));
    return b_.CreateTrunc(b_.CreateSelect(is_nan, quiet, rounded), WithLanes(i16_, lanes));
  }
  // Rounds a float (compute form of bfloat16) to the nearest bfloat16 value.
  llvm::Value* RoundBF16(llvm::Value* f) { return BF16ToF32(F32ToBF16(f)); }

  llvm::Value* ToStorage(llvm::Value* v, DataType elem) {
    if (elem.is_bool()) return b_.CreateZExt(v, WithLanes(i8_, Lanes(v)));
    if (elem.is_bfloat()) return F32ToBF16(v);
    return v;
  }
  llvm::Value* FromStorage(llvm::Value* v, DataType elem) {
    if (elem.is_bool()) return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    if (elem.is_bfloat()) return BF16ToF32(v);
    return v;
  }

  // ---------------- functions ----------------
  void Declare(const std::string& name, const PrimFuncNode* f) {
    llvm::Function* fn;
    std::string symbol = driver::LoweredSymbol(name, f);
    if (driver::IsPackedEntry(f)) {
      fn = llvm::Function::Create(kernel_fn_ty_, llvm::Function::ExternalLinkage, symbol, module_.get());
    } else {
      // Internal helpers take their params plus the caller's env and result slot.
      std::vector<llvm::Type*> params;
      for (const Var& v : f->params) params.push_back(LType(v.dtype()));
      params.push_back(ptr_);
      params.push_back(ptr_);
      fn = llvm::Function::Create(llvm::FunctionType::get(LType(RetDType(f)), params, false),
                                  llvm::Function::InternalLinkage, symbol, module_.get());
    }
    SetAttributes(fn);
    functions_[name] = {fn, f};
  }
  static DataType RetDType(const PrimFuncNode* f) {
    const auto* pt = f->ret_type.defined() ? f->ret_type.as<PrimTypeNode>() : nullptr;
    return pt != nullptr && !pt->dtype.is_void() ? pt->dtype : DataType::Int(32);
  }
  void SetAttributes(llvm::Function* fn) {
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->addFnAttr("target-cpu", tm_->getTargetCPU());
    if (!tm_->getTargetFeatureString().empty()) fn->addFnAttr("target-features", tm_->getTargetFeatureString());
  }

  void EmitFunction(const std::string& name, const PrimFuncNode* f) {
    fname_ = driver::LoweredSymbol(name, f);
    llvm::Function* fn = functions_[name].first;
    fs_ = FunctionState();
    fs_.fn = fn;
    fs_.packed = driver::IsPackedEntry(f);
    emitted_.push_back(fn);
    vars_.clear();
    auto arg = fn->arg_begin();
    if (fs_.packed) {
      if (f->params.size() != 4) {
        Fail("packed entry needs 4 params (self, args, num_args, result)");
        return;
      }
      for (int i = 0; i < 4; ++i, ++arg) vars_[f->params[i].get()] = &*arg;
      fs_.self = fn->getArg(0);
      fs_.result = fn->getArg(3);
      fn->getArg(0)->setName("self");
      fn->getArg(1)->setName("args");
      fn->getArg(2)->setName("num_args");
      fn->getArg(3)->setName("result");
    } else {
      for (const Var& v : f->params) {
        arg->setName(v->name);
        vars_[v.get()] = &*arg++;
      }
      fs_.self = &*arg++;
      fs_.result = &*arg;
      fs_.ret_dtype = RetDType(f);
    }
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    VisitStmt(f->body);
    if (!b_.GetInsertBlock()->getTerminator()) EmitExit(nullptr);
  }

  // Leaves the current function: frees live temporaries and returns `rc` (packed entries and
  // parallel bodies) or `value` (helpers; null = zero). Continues in a fresh unreachable block.
  void EmitExit(llvm::Value* value) {
    for (auto it = fs_.heap.rbegin(); it != fs_.heap.rend(); ++it) CallFree(*it);
    llvm::Type* ret = fs_.fn->getReturnType();
    if (value == nullptr) value = llvm::Constant::getNullValue(ret);
    b_.CreateRet(value);
    StartDeadBlock();
  }
  // Closes the blocks that code after a return/break/failed assert left open: they have no
  // predecessors, so they end in `unreachable` (LLVM deletes them).
  void FinishFunction() {
    for (llvm::Function* fn : emitted_) {
      for (llvm::BasicBlock& bb : *fn) {
        if (bb.getTerminator() != nullptr) continue;
        if (!llvm::pred_empty(&bb) || &bb == &fn->getEntryBlock()) {
          Fail(absl::StrCat("internal: block ", bb.getName().str(), " has no terminator"));
          return;
        }
        llvm::IRBuilder<> end(&bb);
        end.CreateUnreachable();
      }
    }
    emitted_.clear();
  }
  void StartDeadBlock() { b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "after", fs_.fn)); }

  // Writes {kKilnErrorMessage, msg} to the result slot and exits with -1.
  void EmitFail(const std::string& msg) {
    StoreResult(kKilnErrorMessage, GlobalString(msg));
    if (fs_.packed || fs_.in_parallel) {
      EmitExit(b_.getInt32(-1));
    } else {
      EmitExit(nullptr);
    }
  }
  // The exit that failed asserts share when no temporaries are live: it receives the message through
  // a phi, so each argument check costs one compare-and-branch instead of its own store-and-return
  // block. Packed entries carry ~10 checks per argument; the smaller IR is much cheaper to optimize
  // and compile.
  llvm::BasicBlock* SharedFailBlock(llvm::Constant* message, llvm::BasicBlock* from) {
    if (fs_.fail_block == nullptr) {
      llvm::IRBuilderBase::InsertPoint saved = b_.saveIP();
      fs_.fail_block = llvm::BasicBlock::Create(ctx_, "assert.fail", fs_.fn);
      b_.SetInsertPoint(fs_.fail_block);
      fs_.fail_message = b_.CreatePHI(ptr_, 4, "message");
      StoreResult(kKilnErrorMessage, fs_.fail_message);
      EmitExit(fs_.packed || fs_.in_parallel ? b_.getInt32(-1) : nullptr);
      b_.restoreIP(saved);
    }
    fs_.fail_message->addIncoming(message, from);
    return fs_.fail_block;
  }
  void StoreResult(int32_t type_index, llvm::Value* payload) {
    b_.CreateStore(b_.getInt32(type_index), b_.CreateStructGEP(any_ty_, fs_.result, 0));
    b_.CreateStore(b_.getInt32(0), b_.CreateStructGEP(any_ty_, fs_.result, 1));
    b_.CreateStore(payload, b_.CreateStructGEP(any_ty_, fs_.result, 2));
  }
  llvm::Constant* GlobalString(const std::string& s) {
    auto it = strings_.find(s);
    if (it != strings_.end()) return it->second;
    llvm::Constant* data = llvm::ConstantDataArray::getString(ctx_, s, true);
    auto* gv = new llvm::GlobalVariable(*module_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data,
                                        ".str");
    gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    gv->setAlignment(llvm::Align(1));
    strings_[s] = gv;
    return gv;
  }

  void EmitKernelTable(const std::vector<std::string>& kernels) {
    std::string table;
    for (const std::string& k : kernels) table += k + '\0';
    llvm::Constant* data = llvm::ConstantDataArray::getString(ctx_, table, true);  // the final NUL
    auto* gv = new llvm::GlobalVariable(*module_, data->getType(), true, llvm::GlobalValue::ExternalLinkage, data,
                                        KILN_KERNEL_TABLE_SYMBOL);
    gv->setAlignment(llvm::Align(1));
  }

  llvm::FunctionCallee Extern(const std::string& name, llvm::Type* ret, std::vector<llvm::Type*> args) {
    return module_->getOrInsertFunction(name, llvm::FunctionType::get(ret, args, false));
  }
  void CallFree(llvm::Value* p) { b_.CreateCall(Extern("free", b_.getVoidTy(), {ptr_}), {p}); }

  llvm::AllocaInst* EntryAlloca(llvm::Type* ty, uint64_t count, unsigned align) {
    llvm::IRBuilder<> entry(&fs_.fn->getEntryBlock(), fs_.fn->getEntryBlock().begin());
    llvm::AllocaInst* a = entry.CreateAlloca(ty, entry.getInt64(count));
    a->setAlignment(llvm::Align(align));
    return a;
  }

  // ---------------- expressions ----------------
  llvm::Value* VisitExprDefault_(const Object* op) override {
    Fail(absl::StrCat("unsupported expression ", op->type_key()));
    return llvm::UndefValue::get(i32_);
  }
  llvm::Value* Undef(DataType t) { return llvm::UndefValue::get(LType(t)); }

  llvm::Value* VisitExpr_(const VarNode* op) override {
    auto it = vars_.find(op);
    if (it == vars_.end()) {
      Fail(absl::StrCat("variable ", op->name, " is used outside its scope"));
      return Undef(op->dtype);
    }
    return it->second;
  }
  llvm::Value* VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }
  llvm::Value* VisitExpr_(const IntImmNode* op) override {
    llvm::Type* t = LType(op->dtype);
    if (!t->isIntegerTy()) {
      Fail(absl::StrCat("integer literal of dtype ", op->dtype.ToString()));
      return Undef(op->dtype);
    }
    return llvm::ConstantInt::get(t, static_cast<uint64_t>(op->value), op->dtype.is_int());
  }
  llvm::Value* VisitExpr_(const FloatImmNode* op) override {
    llvm::Value* v = llvm::ConstantFP::get(LType(op->dtype), op->value);
    return op->dtype.is_bfloat() ? RoundBF16(v) : v;
  }
  llvm::Value* VisitExpr_(const StringImmNode* op) override { return GlobalString(op->value); }

  llvm::Value* Convert(llvm::Value* v, DataType from, DataType to) {
    llvm::Type* target = LType(to.with_lanes(std::max(1, Lanes(v))));
    DataType f = from.element_of(), t = to.element_of();
    if (f == t) return v;
    if (t.is_bool()) {
      if (f.is_floating()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
      if (f.is_handle()) return b_.CreateIsNotNull(v);
      return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    }
    if (t.is_handle()) return f.is_handle() ? v : b_.CreateIntToPtr(v, target);
    if (f.is_handle()) return b_.CreatePtrToInt(v, target);
    if (f.is_int_or_bool() && t.is_int_or_bool()) return b_.CreateIntCast(v, target, f.is_int());
    if (f.is_int_or_bool() && t.is_floating()) {
      llvm::Value* r = f.is_int() ? b_.CreateSIToFP(v, target) : b_.CreateUIToFP(v, target);
      return t.is_bfloat() ? RoundBF16(r) : r;
    }
    if (f.is_floating() && t.is_int_or_bool()) {
      return t.is_int() ? b_.CreateFPToSI(v, target) : b_.CreateFPToUI(v, target);
    }
    if (f.is_floating() && t.is_floating()) {
      llvm::Value* r = b_.CreateFPCast(v, target);
      return t.is_bfloat() ? RoundBF16(r) : r;
    }
    Fail(absl::StrCat("cannot cast ", f.ToString(), " to ", t.ToString()));
    return llvm::UndefValue::get(target);
  }
  llvm::Value* VisitExpr_(const CastNode* op) override {
    llvm::Value* v = VisitExpr(op->value);
    if (op->dtype.lanes() > 1 && Lanes(v) == 1) v = Splat(v, op->dtype.lanes());
    return Convert(v, op->value.dtype(), op->dtype);
  }

  // Brings both operands to the node's lane count (TIR allows scalar-vector mixing after
  // simplification only through Broadcast, but be lenient).
  std::pair<llvm::Value*, llvm::Value*> Operands(const BinaryNode* op) {
    llvm::Value* a = VisitExpr(op->a);
    llvm::Value* b = VisitExpr(op->b);
    int lanes = std::max(Lanes(a), Lanes(b));
    return {Splat(a, lanes), Splat(b, lanes)};
  }
  llvm::Value* Finish(DataType t, llvm::Value* v) { return t.element_of().is_bfloat() ? RoundBF16(v) : v; }

  llvm::Value* VisitExpr_(const AddNode* op) override {
    auto [a, b] = Operands(op);
    return op->dtype.is_floating() ? Finish(op->dtype, b_.CreateFAdd(a, b)) : b_.CreateAdd(a, b);
  }
  llvm::Value* VisitExpr_(const SubNode* op) override {
    auto [a, b] = Operands(op);
    return op->dtype.is_floating() ? Finish(op->dtype, b_.CreateFSub(a, b)) : b_.CreateSub(a, b);
  }
  llvm::Value* VisitExpr_(const MulNode* op) override {
    auto [a, b] = Operands(op);
    return op->dtype.is_floating() ? Finish(op->dtype, b_.CreateFMul(a, b)) : b_.CreateMul(a, b);
  }
  llvm::Value* VisitExpr_(const DivNode* op) override {
    auto [a, b] = Operands(op);
    if (op->dtype.is_floating()) return Finish(op->dtype, b_.CreateFDiv(a, b));
    return op->dtype.is_int() ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
  }
  llvm::Value* VisitExpr_(const ModNode* op) override {
    auto [a, b] = Operands(op);
    if (op->dtype.is_floating()) return Finish(op->dtype, b_.CreateFRem(a, b));  // fmod
    return op->dtype.is_int() ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
  }
  llvm::Value* Floor(llvm::Value* x) {
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
  }
  // float16 floordiv/floormod are one TIR operation each, so they are computed in float and rounded
  // to half once (as the C backend's _Float16 arithmetic does). Rounding every step to half instead
  // can give a floormod far outside [0, b): x / b rounded to half may cross an integer.
  std::pair<llvm::Value*, llvm::Value*> WidenHalf(llvm::Value* a, llvm::Value* b) {
    if (!a->getType()->getScalarType()->isHalfTy()) return {a, b};
    llvm::Type* wide = WithLanes(f32_, Lanes(a));
    return {b_.CreateFPExt(a, wide), b_.CreateFPExt(b, wide)};
  }
  llvm::Value* NarrowLike(llvm::Value* v, llvm::Value* like) {
    return v->getType() == like->getType() ? v : b_.CreateFPTrunc(v, like->getType());
  }
  llvm::Value* VisitExpr_(const FloorDivNode* op) override {
    auto [a, b] = Operands(op);
    if (op->dtype.is_floating()) {
      auto [x, y] = WidenHalf(a, b);
      return Finish(op->dtype, NarrowLike(Floor(b_.CreateFDiv(x, y)), a));
    }
    if (!op->dtype.is_int()) return b_.CreateUDiv(a, b);
    // q - 1 when the remainder is non-zero and its sign differs from the divisor's.
    llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
    llvm::Value* q = b_.CreateSDiv(a, b);
    llvm::Value* r = b_.CreateSRem(a, b);
    llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                       b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
    return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
  }
  llvm::Value* VisitExpr_(const FloorModNode* op) override {
    auto [a, b] = Operands(op);
    if (op->dtype.is_floating()) {
      auto [x, y] = WidenHalf(a, b);
      return Finish(op->dtype, NarrowLike(b_.CreateFSub(x, b_.CreateFMul(Floor(b_.CreateFDiv(x, y)), y)), a));
    }
    if (!op->dtype.is_int()) return b_.CreateURem(a, b);
    llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
    llvm::Value* r = b_.CreateSRem(a, b);
    llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                       b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
    return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
  }
  // Min/Max as `a < b ? a : b` (the C backend's NaN behaviour).
  llvm::Value* VisitExpr_(const MinNode* op) override {
    auto [a, b] = Operands(op);
    return b_.CreateSelect(Less(op->a.dtype(), a, b), a, b);
  }
  llvm::Value* VisitExpr_(const MaxNode* op) override {
    auto [a, b] = Operands(op);
    return b_.CreateSelect(Less(op->a.dtype(), b, a), a, b);
  }
  llvm::Value* Less(DataType t, llvm::Value* a, llvm::Value* b) {
    if (t.is_floating()) return b_.CreateFCmpOLT(a, b);
    return t.is_int() ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
  }
  enum class Cmp { kEQ, kNE, kLT, kLE, kGT, kGE };
  llvm::Value* Compare(const BinaryNode* op, Cmp c) {
    auto [a, b] = Operands(op);
    DataType t = op->a.dtype();
    if (t.is_floating()) {
      switch (c) {
        case Cmp::kEQ: return b_.CreateFCmpOEQ(a, b);
        case Cmp::kNE: return b_.CreateFCmpUNE(a, b);
        case Cmp::kLT: return b_.CreateFCmpOLT(a, b);
        case Cmp::kLE: return b_.CreateFCmpOLE(a, b);
        case Cmp::kGT: return b_.CreateFCmpOGT(a, b);
        case Cmp::kGE: return b_.CreateFCmpOGE(a, b);
      }
    }
    bool s = t.is_int();
    switch (c) {
      case Cmp::kEQ: return b_.CreateICmpEQ(a, b);
      case Cmp::kNE: return b_.CreateICmpNE(a, b);
      case Cmp::kLT: return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
      case Cmp::kLE: return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
      case Cmp::kGT: return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
      case Cmp::kGE: return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    }
    return nullptr;
  }
  llvm::Value* VisitExpr_(const EQNode* op) override { return Compare(op, Cmp::kEQ); }
  llvm::Value* VisitExpr_(const NENode* op) override { return Compare(op, Cmp::kNE); }
  llvm::Value* VisitExpr_(const LTNode* op) override { return Compare(op, Cmp::kLT); }
  llvm::Value* VisitExpr_(const LENode* op) override { return Compare(op, Cmp::kLE); }
  llvm::Value* VisitExpr_(const GTNode* op) override { return Compare(op, Cmp::kGT); }
  llvm::Value* VisitExpr_(const GENode* op) override { return Compare(op, Cmp::kGE); }

  // Scalar && / || short-circuit when the right side reads memory or calls (a guard like
  // `i < n && A[i] > 0` must not load A[n]); otherwise both sides are evaluated.
  llvm::Value* Logical(const BinaryNode* op, bool is_and) {
    if (op->dtype.is_scalar() && HasLoadOrCall(op->b)) {
      llvm::Value* a = VisitExpr(op->a);
      llvm::BasicBlock* from = b_.GetInsertBlock();
      llvm::BasicBlock* rhs = llvm::BasicBlock::Create(ctx_, is_and ? "and.rhs" : "or.rhs", fs_.fn);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, is_and ? "and.end" : "or.end", fs_.fn);
      if (is_and) {
        b_.CreateCondBr(a, rhs, done);
      } else {
        b_.CreateCondBr(a, done, rhs);
      }
      b_.SetInsertPoint(rhs);
      llvm::Value* b = VisitExpr(op->b);
      llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      llvm::PHINode* phi = b_.CreatePHI(i1_, 2);
      phi->addIncoming(b_.getInt1(!is_and), from);
      phi->addIncoming(b, rhs_end);
      return phi;
    }
    auto [a, b] = Operands(op);
    return is_and ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
  }
  llvm::Value* VisitExpr_(const AndNode* op) override { return Logical(op, true); }
  llvm::Value* VisitExpr_(const OrNode* op) override { return Logical(op, false); }
  llvm::Value* VisitExpr_(const NotNode* op) override { return b_.CreateNot(VisitExpr(op->a)); }
  llvm::Value* VisitExpr_(const SelectNode* op) override {
    llvm::Value* c = VisitExpr(op->condition);
    llvm::Value* t = VisitExpr(op->true_value);
    llvm::Value* f = VisitExpr(op->false_value);
    int lanes = std::max(Lanes(t), Lanes(f));
    return b_.CreateSelect(c, Splat(t, lanes), Splat(f, lanes));
  }

  // Lane index constants <0, 1, ..., n-1> of the given integer type.
  llvm::Value* LaneIds(llvm::Type* scalar, int lanes) {
    std::vector<llvm::Constant*> ids;
    for (int i = 0; i < lanes; ++i) ids.push_back(llvm::ConstantInt::get(scalar, i));
    return llvm::ConstantVector::get(ids);
  }
  llvm::Value* VisitExpr_(const RampNode* op) override {
    llvm::Value* base = VisitExpr(op->base);
    llvm::Value* stride = VisitExpr(op->stride);
    llvm::Type* s = base->getType();
    if (s->isFloatingPointTy()) {
      llvm::Value* ids = b_.CreateUIToFP(LaneIds(i32_, op->lanes), WithLanes(s, op->lanes));
      return b_.CreateFAdd(Splat(base, op->lanes), b_.CreateFMul(Splat(stride, op->lanes), ids));
    }
    return b_.CreateAdd(Splat(base, op->lanes), b_.CreateMul(Splat(stride, op->lanes), LaneIds(s, op->lanes)));
  }
  llvm::Value* VisitExpr_(const BroadcastNode* op) override { return Splat(VisitExpr(op->value), op->lanes); }
  llvm::Value* VisitExpr_(const ShuffleNode* op) override {
    // Gathers lanes by global index across the concatenated input vectors.
    std::vector<std::pair<llvm::Value*, int>> lanes;  // (vector, lane) per global index
    for (const PrimExpr& v : op->vectors) {
      llvm::Value* x = VisitExpr(v);
      for (int l = 0; l < Lanes(x); ++l) lanes.emplace_back(x, l);
    }
    llvm::Type* elem = LType(op->dtype.element_of());
    int n = static_cast<int>(op->indices.size());
    llvm::Value* out = n > 1 ? llvm::UndefValue::get(WithLanes(elem, n)) : nullptr;
    for (int i = 0; i < n; ++i) {
      const auto* idx = op->indices[i].as<IntImmNode>();
      if (idx == nullptr || idx->value < 0 || idx->value >= static_cast<int64_t>(lanes.size())) {
        Fail("Shuffle needs constant in-range indices");
        return Undef(op->dtype);
      }
      auto [vec, lane] = lanes[idx->value];
      llvm::Value* x = vec->getType()->isVectorTy() ? b_.CreateExtractElement(vec, lane) : vec;
      if (n == 1) return x;
      out = b_.CreateInsertElement(out, x, i);
    }
    return out;
  }
  llvm::Value* VisitExpr_(const LetNode* op) override {
    vars_[op->var.get()] = VisitExpr(op->value);
    llvm::Value* v = VisitExpr(op->body);
    vars_.erase(op->var.get());
    return v;
  }

  // ---------------- memory ----------------
  llvm::Value* BufferPtr(const Buffer& buf) {
    auto it = vars_.find(buf->data.get());
    if (it == vars_.end()) {
      Fail(absl::StrCat("buffer ", buf->name, " is used outside its scope"));
      return llvm::ConstantPointerNull::get(ptr_);
    }
    return it->second;
  }
  // The stride-1 Ramp base if `index` is one (a contiguous access), else null.
  const RampNode* DenseRamp(const PrimExpr& index) {
    const auto* r = index.as<RampNode>();
    if (r == nullptr) return nullptr;
    const auto* s = r->stride.as<IntImmNode>();
    return s != nullptr && s->value == 1 ? r : nullptr;
  }
  llvm::Value* Index64(llvm::Value* i, bool is_signed) {
    llvm::Type* t = WithLanes(i64_, Lanes(i));
    return b_.CreateIntCast(i, t, is_signed);
  }
  llvm::Value* Mask(const PrimExpr& predicate, int lanes) {
    if (!predicate.defined()) return llvm::Constant::getAllOnesValue(WithLanes(i1_, lanes));
    return Splat(VisitExpr(predicate), lanes);
  }

  llvm::Value* VisitExpr_(const BufferLoadNode* op) override {
    if (op->indices.size() != 1) {
      Fail(absl::StrCat("buffer ", op->buffer->name, " is not flattened"));
      return Undef(op->dtype);
    }
    DataType elem = op->buffer->dtype.element_of();
    llvm::Type* st = StorageType(elem);
    llvm::Value* base = BufferPtr(op->buffer);
    llvm::Align align(st->getScalarSizeInBits() / 8 ? st->getScalarSizeInBits() / 8 : 1);
    int lanes = op->dtype.lanes() / std::max(1, op->buffer->dtype.lanes());
    const PrimExpr& index = op->indices[0];
    bool is_signed = index.dtype().is_int();
    if (op->buffer->dtype.lanes() > 1) {
      Fail(absl::StrCat("buffer ", op->buffer->name, " has a vector element dtype"));
      return Undef(op->dtype);
    }
    llvm::Value* raw;
    if (lanes == 1) {
      llvm::Value* p = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(index), is_signed));
      raw = b_.CreateAlignedLoad(st, p, align);
    } else if (const RampNode* r = DenseRamp(index)) {
      llvm::Value* p = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(r->base), r->base.dtype().is_int()));
      llvm::Type* vt = WithLanes(st, lanes);
      if (op->predicate.defined()) {
        raw = b_.CreateMaskedLoad(vt, p, align, Mask(op->predicate, lanes), llvm::Constant::getNullValue(vt));
      } else {
        raw = b_.CreateAlignedLoad(vt, p, align);
      }
    } else {
      llvm::Value* ptrs = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(index), is_signed));
      llvm::Type* vt = WithLanes(st, lanes);
      raw = b_.CreateMaskedGather(vt, ptrs, align, Mask(op->predicate, lanes), llvm::Constant::getNullValue(vt));
    }
    return FromStorage(raw, elem);
  }

  // ---------------- calls ----------------
  llvm::Value* VisitExpr_(const CallNode* op) override;
  llvm::Value* CallIntrinsic(const std::string& name, const CallNode* op);
  llvm::Value* MathCall(const std::string& name, const CallNode* op);
  llvm::Value* StructGet(const CallNode* op);

  // Applies a scalar libm function lane by lane (float16 goes through float).
  llvm::Value* Libm(const std::string& base, const std::vector<llvm::Value*>& args) {
    llvm::Type* ty = args[0]->getType();
    llvm::Type* scalar = ty->getScalarType();
    llvm::Type* compute = scalar->isHalfTy() ? f32_ : scalar;
    std::vector<llvm::Type*> arg_types;
    for (llvm::Value* a : args) {
      llvm::Type* s = a->getType()->getScalarType();
      arg_types.push_back(s->isFloatingPointTy() ? compute : s);
    }
    llvm::FunctionCallee fn = Extern(LibmName(base, compute), compute, arg_types);
    int lanes = Lanes(args[0]);
    auto lane_call = [&](int l) {
      std::vector<llvm::Value*> xs;
      for (llvm::Value* a : args) {
        llvm::Value* x = a->getType()->isVectorTy() ? b_.CreateExtractElement(a, l) : a;
        if (x->getType()->isHalfTy()) x = b_.CreateFPExt(x, f32_);
        xs.push_back(x);
      }
      llvm::Value* r = b_.CreateCall(fn, xs);
      return scalar->isHalfTy() ? b_.CreateFPTrunc(r, scalar) : r;
    };
    if (lanes == 1) return lane_call(0);
    llvm::Value* out = llvm::UndefValue::get(ty);
    for (int l = 0; l < lanes; ++l) out = b_.CreateInsertElement(out, lane_call(l), l);
    return out;
  }

  // ---------------- statements ----------------
  void VisitStmtDefault_(const Object* op) override { Fail(absl::StrCat("unsupported statement ", op->type_key())); }

  void VisitStmt_(const LetStmtNode* op) override {
    llvm::Value* v = VisitExpr(op->value);
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(v)) inst->setName(op->var->name);
    vars_[op->var.get()] = v;
    VisitStmt(op->body);
    vars_.erase(op->var.get());
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    if (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") {
      Fail("GPU thread bindings reached the LLVM CPU backend");
      return;
    }
    if (op->attr_key == "compute_scope" && fs_.packed) {
      EmitComputeScope(op);
      return;
    }
    VisitStmt(op->body);
  }
  // The body of a packed entry after its argument checks (MakePackedAPI's compute_scope) becomes
  // the internal function `int32_t <name>(captured..., self, result)`, which behaves like the entry
  // (asserts, tirx.ret and parallel loops report through `result`); the entry tail-returns its code.
  // The entry itself, mostly compare-and-branch checks that run once per call, is marked optnone:
  // LLVM skips it in the optimization pipeline and compiles it with the fast instruction selector
  // and register allocator, which took most of the compile time of small kernels (~35 checked
  // branches per two-buffer kernel), while the computation gets the full pipeline.
  void EmitComputeScope(const AttrStmtNode* op) {
    const auto* name = op->value.as<StringImmNode>();
    if (name == nullptr) {
      Fail("compute_scope needs a function name (a string)");
      return;
    }
    std::vector<Var> captured = tir::FreeVars(op->body);
    std::vector<llvm::Value*> args;
    std::vector<llvm::Type*> params;
    for (const Var& v : captured) {
      auto it = vars_.find(v.get());
      if (it == vars_.end()) {
        Fail(absl::StrCat("variable ", v->name, " is used outside its scope"));
        return;
      }
      args.push_back(it->second);
      params.push_back(it->second->getType());
    }
    args.push_back(fs_.self);
    args.push_back(fs_.result);
    params.push_back(ptr_);
    params.push_back(ptr_);
    llvm::Function* compute = llvm::Function::Create(llvm::FunctionType::get(i32_, params, false),
                                                     llvm::Function::InternalLinkage, name->value, module_.get());
    SetAttributes(compute);
    compute->addFnAttr(llvm::Attribute::NoInline);
    fs_.fn->addFnAttr(llvm::Attribute::NoInline);
    fs_.fn->addFnAttr(llvm::Attribute::OptimizeNone);
    llvm::CallInst* rc = b_.CreateCall(compute, args);
    EmitExit(rc);

    EmitOutlined(compute, [&] {
      fs_.packed = true;
      for (size_t i = 0; i < captured.size(); ++i) {
        compute->getArg(i)->setName(captured[i]->name);
        vars_[captured[i].get()] = compute->getArg(i);
      }
      fs_.self = compute->getArg(captured.size());
      fs_.result = compute->getArg(captured.size() + 1);
      VisitStmt(op->body);
      if (!b_.GetInsertBlock()->getTerminator()) EmitExit(b_.getInt32(0));
    });
  }
  // Emits `fn`'s body with emit() under a fresh function state and variable scope, then returns to
  // the function and block being emitted before.
  template <typename EmitBody>
  void EmitOutlined(llvm::Function* fn, EmitBody emit) {
    FunctionState saved_fs = std::move(fs_);
    auto saved_vars = std::move(vars_);
    llvm::BasicBlock* saved_block = b_.GetInsertBlock();
    fs_ = FunctionState();
    fs_.fn = fn;
    fs_.outlined = saved_fs.outlined;
    emitted_.push_back(fn);
    vars_.clear();
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    emit();
    int outlined = fs_.outlined;
    fs_ = std::move(saved_fs);
    fs_.outlined = outlined;
    vars_ = std::move(saved_vars);
    b_.SetInsertPoint(saved_block);
  }
  void VisitStmt_(const AssertStmtNode* op) override {
    std::string msg = op->error_kind + ": ";
    for (const String& part : op->message_parts) msg += part.str();
    llvm::Value* ok = VisitExpr(op->condition);
    llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "assert.ok", fs_.fn);
    llvm::MDNode* weights = llvm::MDBuilder(ctx_).createBranchWeights(1 << 20, 1);
    if (fs_.heap.empty()) {
      b_.CreateCondBr(ok, cont, SharedFailBlock(GlobalString(msg), b_.GetInsertBlock()), weights);
    } else {
      // Live temporaries: this exit frees them, so it is its own.
      llvm::BasicBlock* fail = llvm::BasicBlock::Create(ctx_, "assert.fail", fs_.fn);
      b_.CreateCondBr(ok, cont, fail, weights);
      b_.SetInsertPoint(fail);
      EmitFail(msg);
    }
    b_.SetInsertPoint(cont);
    if (op->body.defined()) VisitStmt(op->body);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (op->indices.size() != 1) {
      Fail(absl::StrCat("buffer ", op->buffer->name, " is not flattened"));
      return;
    }
    if (op->buffer->dtype.lanes() > 1) {
      Fail(absl::StrCat("buffer ", op->buffer->name, " has a vector element dtype"));
      return;
    }
    DataType elem = op->buffer->dtype.element_of();
    llvm::Type* st = StorageType(elem);
    llvm::Align align(st->getScalarSizeInBits() / 8 ? st->getScalarSizeInBits() / 8 : 1);
    llvm::Value* base = BufferPtr(op->buffer);
    const PrimExpr& index = op->indices[0];
    int lanes = std::max(op->value.dtype().lanes(), index.dtype().lanes());
    llvm::Value* value = ToStorage(Splat(VisitExpr(op->value), lanes), elem);
    if (lanes == 1) {
      llvm::Value* p = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(index), index.dtype().is_int()));
      b_.CreateAlignedStore(value, p, align);
    } else if (const RampNode* r = DenseRamp(index)) {
      llvm::Value* p = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(r->base), r->base.dtype().is_int()));
      if (op->predicate.defined()) {
        b_.CreateMaskedStore(value, p, align, Mask(op->predicate, lanes));
      } else {
        b_.CreateAlignedStore(value, p, align);
      }
    } else {
      llvm::Value* idx = Splat(VisitExpr(index), lanes);
      llvm::Value* ptrs = b_.CreateInBoundsGEP(st, base, Index64(idx, index.dtype().is_int()));
      b_.CreateMaskedScatter(value, ptrs, align, Mask(op->predicate, lanes));
    }
  }

  // Attaches llvm.loop hints for vectorized / unrolled loops to the latch branch.
  void LoopHints(llvm::BranchInst* latch, ForKind kind) {
    const char* hint = kind == ForKind::kVectorized ? "llvm.loop.vectorize.enable"
                       : kind == ForKind::kUnrolled ? "llvm.loop.unroll.full"
                                                    : nullptr;
    if (hint == nullptr) return;
    std::vector<llvm::Metadata*> ops = {nullptr};
    if (kind == ForKind::kVectorized) {
      ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, hint),
                                             llvm::ConstantAsMetadata::get(b_.getTrue())}));
    } else {
      ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, hint)}));
    }
    llvm::MDNode* loop = llvm::MDNode::getDistinct(ctx_, ops);
    loop->replaceOperandWith(0, loop);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }

  // for (v = begin; v < end; v += step) body, with v a phi. `begin`/`end` already evaluated.
  void EmitSerialLoop(const VarNode* var, llvm::Value* begin, llvm::Value* end, llvm::Value* step, bool is_signed,
                      const Stmt& body, ForKind kind) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for.header", fs_.fn);
    llvm::BasicBlock* loop_body = llvm::BasicBlock::Create(ctx_, "for.body", fs_.fn);
    llvm::BasicBlock* latch = llvm::BasicBlock::Create(ctx_, "for.latch", fs_.fn);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "for.end", fs_.fn);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* iv = b_.CreatePHI(begin->getType(), 2, var->name);
    iv->addIncoming(begin, pre);
    llvm::Value* more = is_signed ? b_.CreateICmpSLT(iv, end) : b_.CreateICmpULT(iv, end);
    b_.CreateCondBr(more, loop_body, exit);
    b_.SetInsertPoint(loop_body);
    vars_[var] = iv;
    fs_.loops.push_back({exit, latch, fs_.heap.size()});
    VisitStmt(body);
    fs_.loops.pop_back();
    vars_.erase(var);
    b_.CreateBr(latch);
    b_.SetInsertPoint(latch);
    // Integer wrap is fine here: the loop stops at `end` before any overflow matters.
    llvm::Value* next = b_.CreateAdd(iv, step);
    iv->addIncoming(next, latch);
    LoopHints(b_.CreateBr(header), kind);
    b_.SetInsertPoint(exit);
  }

  void VisitStmt_(const ForNode* op) override {
    if (op->kind == ForKind::kThreadBinding) {
      Fail("GPU thread bindings reached the LLVM CPU backend");
      return;
    }
    if (op->kind == ForKind::kParallel && !fs_.in_parallel) {
      EmitParallel(op);
      return;
    }
    DataType t = op->loop_var.dtype();
    llvm::Type* lt = LType(t);
    llvm::Value* begin = b_.CreateIntCast(VisitExpr(op->min), lt, op->min.dtype().is_int());
    llvm::Value* extent = b_.CreateIntCast(VisitExpr(op->extent), lt, op->extent.dtype().is_int());
    llvm::Value* step = op->step.defined() ? b_.CreateIntCast(VisitExpr(op->step), lt, op->step.dtype().is_int())
                                           : llvm::ConstantInt::get(lt, 1);
    llvm::Value* end = b_.CreateAdd(begin, extent);
    EmitSerialLoop(op->loop_var.get(), begin, end, step, t.is_int(), op->body, op->kind);
  }

  // Outlines the loop into `int32_t body(int64_t begin, int64_t end, void* closure)` and runs it
  // through env->parallel_for, or directly over [0, extent) when there is no env.
  void EmitParallel(const ForNode* op) {
    if (op->step.defined() && !(op->step.as<IntImmNode>() && op->step.as<IntImmNode>()->value == 1)) {
      Fail("parallel loops with a step are not supported");
      return;
    }
    std::vector<Var> captured = tir::FreeVars(GetRef<Stmt>(op));
    std::vector<llvm::Type*> fields;
    std::vector<llvm::Value*> values;
    for (const Var& v : captured) {
      auto it = vars_.find(v.get());
      if (it == vars_.end()) {
        Fail(absl::StrCat("variable ", v->name, " is used outside its scope"));
        return;
      }
      values.push_back(it->second);
      fields.push_back(it->second->getType());
    }
    fields.push_back(ptr_);  // self
    fields.push_back(ptr_);  // result
    llvm::StructType* closure_ty = llvm::StructType::get(ctx_, fields);
    std::string id = absl::StrCat(fname_, "_par", fs_.outlined++);
    llvm::Function* body_fn =
        llvm::Function::Create(body_fn_ty_, llvm::Function::InternalLinkage, id, module_.get());
    SetAttributes(body_fn);

    // The call site: fill the closure, call, propagate a failure.
    llvm::Value* closure = EntryAlloca(closure_ty, 1, 8);
    for (size_t i = 0; i < values.size(); ++i) b_.CreateStore(values[i], b_.CreateStructGEP(closure_ty, closure, i));
    b_.CreateStore(fs_.self, b_.CreateStructGEP(closure_ty, closure, values.size()));
    b_.CreateStore(fs_.result, b_.CreateStructGEP(closure_ty, closure, values.size() + 1));
    llvm::Value* n = b_.CreateIntCast(VisitExpr(op->extent), i64_, op->extent.dtype().is_int());
    llvm::BasicBlock* pooled = llvm::BasicBlock::Create(ctx_, "par.pool", fs_.fn);
    llvm::BasicBlock* serial = llvm::BasicBlock::Create(ctx_, "par.serial", fs_.fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "par.done", fs_.fn);
    llvm::Value* env = fs_.self;
    llvm::BasicBlock* check_fn = llvm::BasicBlock::Create(ctx_, "par.env", fs_.fn);
    b_.CreateCondBr(b_.CreateIsNull(env), serial, check_fn);
    b_.SetInsertPoint(check_fn);
    llvm::Value* pfor = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, env, 0));
    b_.CreateCondBr(b_.CreateIsNull(pfor), serial, pooled);
    b_.SetInsertPoint(pooled);
    llvm::Value* pool = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, env, 1));
    llvm::Value* rc_pool = b_.CreateCall(parallel_for_ty_, pfor, {pool, n, body_fn, closure});
    b_.CreateBr(done);
    b_.SetInsertPoint(serial);
    llvm::Value* rc_serial = b_.CreateCall(body_fn, {b_.getInt64(0), n, closure});
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    llvm::PHINode* rc = b_.CreatePHI(i32_, 2, "par.rc");
    rc->addIncoming(rc_pool, pooled);
    rc->addIncoming(rc_serial, serial);
    llvm::BasicBlock* failed = llvm::BasicBlock::Create(ctx_, "par.failed", fs_.fn);
    llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "par.ok", fs_.fn);
    b_.CreateCondBr(b_.CreateICmpEQ(rc, b_.getInt32(0)), cont, failed);
    b_.SetInsertPoint(failed);
    if (fs_.packed) {
      EmitExit(rc);
    } else {
      EmitExit(nullptr);
    }
    b_.SetInsertPoint(cont);

    // The outlined body, emitted with its own function state and variable scope.
    EmitOutlined(body_fn, [&] {
      fs_.in_parallel = true;
      llvm::Value* c = body_fn->getArg(2);
      for (size_t i = 0; i < captured.size(); ++i) {
        vars_[captured[i].get()] = b_.CreateLoad(fields[i], b_.CreateStructGEP(closure_ty, c, i), captured[i]->name);
      }
      fs_.self = b_.CreateLoad(ptr_, b_.CreateStructGEP(closure_ty, c, captured.size()));
      fs_.result = b_.CreateLoad(ptr_, b_.CreateStructGEP(closure_ty, c, captured.size() + 1));
      // it in [begin, end): loop_var = min + it.
      llvm::Value* min = b_.CreateIntCast(VisitExpr(op->min), i64_, op->min.dtype().is_int());
      llvm::Value* begin = b_.CreateAdd(min, body_fn->getArg(0));
      llvm::Value* end = b_.CreateAdd(min, body_fn->getArg(1));
      // Iterate in int64 and narrow the loop var, so a narrow loop var cannot overflow the bound.
      Var it("it", DataType::Int(64));
      LetStmt bind(op->loop_var, Cast(op->loop_var.dtype(), it), op->body);
      EmitSerialLoop(it.get(), begin, end, b_.getInt64(1), true, bind, ForKind::kSerial);
      if (!b_.GetInsertBlock()->getTerminator()) EmitExit(b_.getInt32(0));
    });
  }

  void VisitStmt_(const WhileNode* op) override {
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "while.cond", fs_.fn);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "while.body", fs_.fn);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "while.end", fs_.fn);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    b_.CreateCondBr(VisitExpr(op->condition), body, exit);
    b_.SetInsertPoint(body);
    fs_.loops.push_back({exit, header, fs_.heap.size()});
    VisitStmt(op->body);
    fs_.loops.pop_back();
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
  }
  void Jump(bool is_break) {
    if (fs_.loops.empty()) {
      Fail(is_break ? "break outside a loop" : "continue outside a loop");
      return;
    }
    const LoopTargets& l = fs_.loops.back();
    for (size_t i = fs_.heap.size(); i > l.heap_depth; --i) CallFree(fs_.heap[i - 1]);
    b_.CreateBr(is_break ? l.break_to : l.continue_to);
    StartDeadBlock();
  }
  void VisitStmt_(const BreakNode*) override { Jump(true); }
  void VisitStmt_(const ContinueNode*) override { Jump(false); }
  void VisitStmt_(const IfThenElseNode* op) override {
    llvm::Value* c = VisitExpr(op->condition);
    // An integer condition (TVM allows one) is true when nonzero.
    if (!c->getType()->isIntegerTy(1)) c = b_.CreateICmpNE(c, llvm::Constant::getNullValue(c->getType()));
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fs_.fn);
    llvm::BasicBlock* end = llvm::BasicBlock::Create(ctx_, "if.end", fs_.fn);
    llvm::BasicBlock* else_bb = op->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "if.else", fs_.fn) : end;
    b_.CreateCondBr(c, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    VisitStmt(op->then_case);
    b_.CreateBr(end);
    if (op->else_case.defined()) {
      b_.SetInsertPoint(else_bb);
      VisitStmt(op->else_case);
      b_.CreateBr(end);
    }
    b_.SetInsertPoint(end);
  }
  void VisitStmt_(const SeqStmtNode* op) override {
    for (const Stmt& s : op->seq) VisitStmt(s);
  }
  void VisitStmt_(const EvaluateNode* op) override {
    if (driver::IsNoOpEvaluate(op)) return;
    // Evaluate(tirx.ret(v)) returns v; any other call is evaluated for its effect.
    if (PrimExpr v = driver::ReturnedValue(op); v.defined()) return EmitReturn(v);
    VisitExpr(op->value);
  }
  void EmitReturn(const PrimExpr& e) {
    if (fs_.in_parallel) {
      Fail("return inside a parallel loop");
      return;
    }
    llvm::Value* v = VisitExpr(e);
    if (!fs_.packed) {
      EmitExit(Convert(v, e.dtype(), fs_.ret_dtype));
      return;
    }
    DataType t = e.dtype();
    if (t.is_floating()) {
      StoreResult(kKilnFloat, b_.CreateBitCast(b_.CreateFPCast(v, b_.getDoubleTy()), i64_));
    } else if (t.is_handle()) {
      StoreResult(kKilnOpaquePtr, b_.CreatePtrToInt(v, i64_));
    } else {
      StoreResult(t.is_bool() ? kKilnBool : kKilnInt, b_.CreateIntCast(v, i64_, t.is_int()));
    }
    EmitExit(b_.getInt32(0));
  }
  void VisitStmt_(const AllocBufferNode* op) override {
    const Buffer& buf = op->buffer;
    int64_t elem_bytes = buf->dtype.bits() == 1 ? 1 : buf->dtype.StorageBytes();
    int64_t bytes = elem_bytes;
    bool constant = true;
    llvm::Value* size = b_.getInt64(elem_bytes);
    for (const PrimExpr& d : buf->shape) {
      if (const auto* imm = d.as<IntImmNode>()) {
        bytes *= imm->value;
      } else {
        constant = false;
      }
      size = b_.CreateMul(size, b_.CreateIntCast(VisitExpr(d), i64_, d.dtype().is_int()));
    }
    if (constant && bytes <= kStackLimit) {
      llvm::Value* p = EntryAlloca(i8_, std::max<int64_t>(bytes, 1), kTempAlign);
      vars_[buf->data.get()] = p;
      VisitStmt(op->body);
      vars_.erase(buf->data.get());
      return;
    }
    // aligned_alloc wants a multiple of the alignment.
    llvm::Value* rounded = b_.CreateAnd(b_.CreateAdd(size, b_.getInt64(kTempAlign - 1)), b_.getInt64(~(kTempAlign - 1)));
    llvm::Value* p = b_.CreateCall(Extern("aligned_alloc", ptr_, {i64_, i64_}), {b_.getInt64(kTempAlign), rounded});
    llvm::BasicBlock* fail = llvm::BasicBlock::Create(ctx_, "alloc.fail", fs_.fn);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "alloc.ok", fs_.fn);
    b_.CreateCondBr(b_.CreateIsNull(p), fail, ok);
    b_.SetInsertPoint(fail);
    EmitFail(absl::StrCat("MemoryError: cannot allocate ", buf->name));
    b_.SetInsertPoint(ok);
    vars_[buf->data.get()] = p;
    fs_.heap.push_back(p);
    VisitStmt(op->body);
    fs_.heap.pop_back();
    vars_.erase(buf->data.get());
    CallFree(p);
  }
  void VisitStmt_(const DeclBufferNode* op) override { VisitStmt(op->body); }

  llvm::LLVMContext& ctx_;
  llvm::TargetMachine* tm_;
  llvm::IRBuilder<> b_;
  std::unique_ptr<llvm::Module> module_;
  llvm::Type *i1_, *i8_, *i16_, *i32_, *i64_, *f32_;
  llvm::PointerType* ptr_;
  llvm::StructType *any_ty_, *tensor_ty_, *env_ty_;
  llvm::FunctionType *kernel_fn_ty_, *body_fn_ty_, *parallel_for_ty_;
  std::map<std::string, std::pair<llvm::Function*, const PrimFuncNode*>> functions_;
  std::map<std::string, llvm::Constant*> strings_;
  std::unordered_map<const VarNode*, llvm::Value*> vars_;
  std::vector<llvm::Function*> emitted_;  // functions whose blocks FinishFunction closes
  FunctionState fs_;
  std::string fname_;
  absl::Status status_;
};

llvm::Value* CodegenLLVM::VisitExpr_(const CallNode* op) {
  if (const auto* gv = op->op.as<GlobalVarNode>()) {
    auto it = functions_.find(gv->name);
    if (it == functions_.end()) {
      Fail(absl::StrCat("call of unknown function ", gv->name));
      return Undef(op->dtype);
    }
    if (driver::IsPackedEntry(it->second.second)) {
      Fail(absl::StrCat("direct call of packed entry ", gv->name));
      return Undef(op->dtype);
    }
    std::vector<llvm::Value*> args;
    for (const PrimExpr& a : op->args) args.push_back(VisitExpr(a));
    args.push_back(fs_.self);
    args.push_back(fs_.result);
    llvm::Function* fn = it->second.first;
    if (args.size() != fn->arg_size()) {
      Fail(absl::StrCat("call of ", gv->name, " with ", op->args.size(), " arguments"));
      return Undef(op->dtype);
    }
    return b_.CreateCall(fn, args);
  }
  const auto* o = op->op.as<OpNode>();
  if (o == nullptr) {
    Fail("call of a non-op");
    return Undef(op->dtype);
  }
  std::string name = o->name.rfind("tirx.", 0) == 0 ? o->name.substr(5) : o->name;
  return CallIntrinsic(name, op);
}

llvm::Value* CodegenLLVM::MathCall(const std::string& name, const CallNode* op) {
  static const std::set<std::string> kMath = {
      "exp",   "exp2",  "log",   "log2",  "log10", "sqrt",  "sin",      "cos",   "fabs",  "abs",
      "floor", "ceil",  "trunc", "round", "nearbyint", "tan", "sinh",   "cosh",  "tanh",  "asin",
      "acos",  "atan",  "asinh", "acosh", "atanh", "erf",   "log1p",    "expm1", "atan2", "hypot",
      "nextafter", "pow", "copysign", "fmod", "fma", "ldexp", "rsqrt", "sigmoid", "exp10"};
  if (!kMath.count(name)) return nullptr;
  std::vector<llvm::Value*> a;
  for (const PrimExpr& x : op->args) a.push_back(VisitExpr(x));
  DataType t = op->dtype;
  auto unary = [&](llvm::Intrinsic::ID id) { return b_.CreateUnaryIntrinsic(id, a[0]); };
  auto binary = [&](llvm::Intrinsic::ID id) { return b_.CreateBinaryIntrinsic(id, a[0], a[1]); };
  llvm::Value* r = nullptr;
  // LLVM intrinsics where LLVM has them (they vectorize and constant-fold); libm otherwise.
  static const std::map<std::string, llvm::Intrinsic::ID> kUnary = {
      {"exp", llvm::Intrinsic::exp},     {"exp2", llvm::Intrinsic::exp2},   {"log", llvm::Intrinsic::log},
      {"log2", llvm::Intrinsic::log2},   {"log10", llvm::Intrinsic::log10}, {"sqrt", llvm::Intrinsic::sqrt},
      {"sin", llvm::Intrinsic::sin},     {"cos", llvm::Intrinsic::cos},     {"fabs", llvm::Intrinsic::fabs},
      {"abs", llvm::Intrinsic::fabs},    {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil},
      {"trunc", llvm::Intrinsic::trunc}, {"round", llvm::Intrinsic::nearbyint},
      {"nearbyint", llvm::Intrinsic::nearbyint}};
  static const std::map<std::string, std::string> kLibmUnary = {
      {"tan", "tan"},     {"sinh", "sinh"},   {"cosh", "cosh"},   {"tanh", "tanh"},   {"asin", "asin"},
      {"acos", "acos"},   {"atan", "atan"},   {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"},
      {"erf", "erf"},     {"log1p", "log1p"}, {"expm1", "expm1"}};
  static const std::map<std::string, std::string> kLibmBinary = {
      {"atan2", "atan2"}, {"hypot", "hypot"}, {"nextafter", "nextafter"}};
  if (auto it = kUnary.find(name); it != kUnary.end()) {
    r = unary(it->second);
  } else if (auto it2 = kLibmUnary.find(name); it2 != kLibmUnary.end()) {
    r = Libm(it2->second, {a[0]});
  } else if (auto it3 = kLibmBinary.find(name); it3 != kLibmBinary.end()) {
    r = Libm(it3->second, {a[0], a[1]});
  } else if (name == "pow") {
    r = binary(llvm::Intrinsic::pow);
  } else if (name == "copysign") {
    r = binary(llvm::Intrinsic::copysign);
  } else if (name == "fmod") {
    r = b_.CreateFRem(a[0], a[1]);
  } else if (name == "fma") {
    r = b_.CreateIntrinsic(llvm::Intrinsic::fma, {a[0]->getType()}, {a[0], a[1], a[2]});
  } else if (name == "ldexp") {
    r = Libm("ldexp", {a[0], b_.CreateIntCast(a[1], WithLanes(i32_, Lanes(a[1])), op->args[1].dtype().is_int())});
  } else if (name == "rsqrt") {
    r = b_.CreateFDiv(llvm::ConstantFP::get(a[0]->getType(), 1.0), unary(llvm::Intrinsic::sqrt));
  } else if (name == "sigmoid") {
    llvm::Value* one = llvm::ConstantFP::get(a[0]->getType(), 1.0);
    r = b_.CreateFDiv(one, b_.CreateFAdd(one, b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(a[0]))));
  } else if (name == "exp10") {
    r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, llvm::ConstantFP::get(a[0]->getType(), 10.0), a[0]);
  }
  return Finish(t, r);
}

llvm::Value* CodegenLLVM::StructGet(const CallNode* op) {
  const auto* idx = op->args[1].as<IntImmNode>();
  const auto* field = op->args[2].as<IntImmNode>();
  if (idx == nullptr || field == nullptr) {
    Fail("tvm_struct_get with non-constant index");
    return Undef(op->dtype);
  }
  llvm::Value* h = VisitExpr(op->args[0]);
  // args[index].<field> of a KilnAny array, or h[index].<path> of a DLTensor array.
  auto any_field = [&](unsigned f) {
    return b_.CreateInBoundsGEP(any_ty_, h, {b_.getInt64(idx->value), b_.getInt32(f)});
  };
  auto field_ptr = [&](std::vector<unsigned> path) {
    std::vector<llvm::Value*> gep = {b_.getInt64(idx->value)};
    for (unsigned p : path) gep.push_back(b_.getInt32(p));
    return b_.CreateInBoundsGEP(tensor_ty_, h, gep);
  };
  llvm::Value* v = nullptr;
  bool is_signed = true;
  switch (static_cast<tir::StructField>(field->value)) {
    case tir::StructField::kArgTypeIndex: v = b_.CreateLoad(i32_, any_field(0)); break;
    case tir::StructField::kArgInt64: v = b_.CreateLoad(i64_, any_field(2)); break;
    case tir::StructField::kArgFloat64:
      v = b_.CreateLoad(b_.getDoubleTy(), any_field(2));
      break;
    case tir::StructField::kArgHandle: v = b_.CreateLoad(ptr_, any_field(2)); break;
    case tir::StructField::kTensorData: v = b_.CreateLoad(ptr_, field_ptr({0})); break;
    case tir::StructField::kTensorDeviceType: v = b_.CreateLoad(i32_, field_ptr({1, 0})); break;
    case tir::StructField::kTensorDeviceId: v = b_.CreateLoad(i32_, field_ptr({1, 1})); break;
    case tir::StructField::kTensorNDim: v = b_.CreateLoad(i32_, field_ptr({2})); break;
    case tir::StructField::kTensorDTypeCode: v = b_.CreateLoad(i8_, field_ptr({3, 0})); is_signed = false; break;
    case tir::StructField::kTensorDTypeBits: v = b_.CreateLoad(i8_, field_ptr({3, 1})); is_signed = false; break;
    case tir::StructField::kTensorDTypeLanes: v = b_.CreateLoad(i16_, field_ptr({3, 2})); is_signed = false; break;
    case tir::StructField::kTensorShape: v = b_.CreateLoad(ptr_, field_ptr({4})); break;
    case tir::StructField::kTensorStrides: v = b_.CreateLoad(ptr_, field_ptr({5})); break;
    case tir::StructField::kTensorByteOffset: v = b_.CreateLoad(i64_, field_ptr({6})); break;
  }
  if (v == nullptr) {
    Fail(absl::StrCat("unknown tvm_struct_get field ", field->value));
    return Undef(op->dtype);
  }
  llvm::Type* want = LType(op->dtype);
  if (v->getType() == want) return v;
  if (v->getType()->isIntegerTy() && want->isIntegerTy()) return b_.CreateIntCast(v, want, is_signed);
  if (v->getType()->isFloatingPointTy() && want->isFloatingPointTy()) return b_.CreateFPCast(v, want);
  Fail(absl::StrCat("tvm_struct_get field ", field->value, " read as ", op->dtype.ToString()));
  return Undef(op->dtype);
}

llvm::Value* CodegenLLVM::CallIntrinsic(const std::string& name, const CallNode* op) {
  const auto& args = op->args;
  DataType t = op->dtype;
  auto arg = [&](size_t i) { return VisitExpr(args[i]); };
  if (t.is_floating() || name == "fabs") {
    if (llvm::Value* r = MathCall(name, op)) return r;
  }
  if (name == "abs" && t.is_int()) {
    llvm::Value* x = arg(0);
    return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::Constant::getNullValue(x->getType())), b_.CreateNeg(x), x);
  }
  if (name == "abs" && t.is_int_or_bool()) return arg(0);
  if (name == "isnan") {
    llvm::Value* x = arg(0);
    return b_.CreateFCmpUNO(x, x);
  }
  if (name == "isinf" || name == "isfinite") {
    llvm::Value* x = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, arg(0));
    llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
    return name == "isinf" ? b_.CreateFCmpOEQ(x, inf) : b_.CreateFCmpOLT(x, inf);
  }
  if (name == "likely") return arg(0);
  if (name == "if_then_else") {
    llvm::Value* c = arg(0);
    if (c->getType()->isVectorTy()) {  // lane-wise: both sides, then select
      llvm::Value* x = arg(1);
      llvm::Value* y = arg(2);
      return b_.CreateSelect(c, Splat(x, Lanes(c)), Splat(y, Lanes(c)));
    }
    // Only the taken branch is evaluated (it may read out of bounds when not taken).
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "ite.then", fs_.fn);
    llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, "ite.else", fs_.fn);
    llvm::BasicBlock* end = llvm::BasicBlock::Create(ctx_, "ite.end", fs_.fn);
    b_.CreateCondBr(c, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    llvm::Value* x = arg(1);
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(end);
    b_.SetInsertPoint(else_bb);
    llvm::Value* y = arg(2);
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(end);
    b_.SetInsertPoint(end);
    int lanes = std::max(Lanes(x), Lanes(y));
    if (Lanes(x) != lanes || Lanes(y) != lanes) {
      Fail("if_then_else with branches of different lanes");
      return Undef(t);
    }
    llvm::PHINode* phi = b_.CreatePHI(x->getType(), 2);
    phi->addIncoming(x, then_end);
    phi->addIncoming(y, else_end);
    return phi;
  }
  if (name == "bitwise_and") return b_.CreateAnd(arg(0), arg(1));
  if (name == "bitwise_or") return b_.CreateOr(arg(0), arg(1));
  if (name == "bitwise_xor") return b_.CreateXor(arg(0), arg(1));
  if (name == "bitwise_not") return b_.CreateNot(arg(0));
  if (name == "shift_left" || name == "shift_right") {
    llvm::Value* x = arg(0);
    llvm::Value* s = b_.CreateIntCast(Splat(arg(1), Lanes(x)), x->getType(), args[1].dtype().is_int());
    if (name == "shift_left") return b_.CreateShl(x, s);
    return t.is_int() ? b_.CreateAShr(x, s) : b_.CreateLShr(x, s);
  }
  if (name == "popcount") return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, arg(0));
  if (name == "clz") {
    llvm::Value* x = arg(0);
    llvm::Value* r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b_.getFalse());
    return b_.CreateIntCast(r, LType(t), false);
  }
  if (name == "isnullptr") return b_.CreateIsNull(arg(0));
  if (name == "reinterpret") {
    llvm::Value* x = arg(0);
    llvm::Type* to = LType(t);
    DataType from = args[0].dtype();
    if (from.is_handle()) return b_.CreatePtrToInt(x, to);
    if (t.is_handle()) return b_.CreateIntToPtr(x, to);
    if (from.element_of().is_bfloat() || t.element_of().is_bfloat()) {
      // bfloat16's bits are its storage form.
      if (from.element_of().is_bfloat()) return b_.CreateBitCast(F32ToBF16(x), to);
      return BF16ToF32(b_.CreateBitCast(x, WithLanes(i16_, t.lanes())));
    }
    return b_.CreateBitCast(x, to);
  }
  if (name == "tvm_struct_get") return StructGet(op);
  if (name == "address_of") {
    const auto* load = args[0].as<BufferLoadNode>();
    if (load == nullptr || load->indices.size() != 1) {
      Fail("address_of needs a flat BufferLoad");
      return Undef(t);
    }
    return b_.CreateInBoundsGEP(StorageType(load->buffer->dtype), BufferPtr(load->buffer),
                                Index64(VisitExpr(load->indices[0]), load->indices[0].dtype().is_int()));
  }
  if (name == "handle_add_byte_offset") {
    return b_.CreateGEP(i8_, arg(0), Index64(arg(1), args[1].dtype().is_int()));
  }
  if (name == "vectorlow" || name == "vectorhigh") {
    llvm::Value* x = arg(0);
    int half = t.lanes();
    std::vector<int> mask;
    for (int i = 0; i < half; ++i) mask.push_back(name == "vectorlow" ? i : Lanes(x) - half + i);
    return b_.CreateShuffleVector(x, mask);
  }
  if (name == "vectorcombine") {
    llvm::Value* x = arg(0);
    llvm::Value* y = arg(1);
    std::vector<int> mask;
    for (int i = 0; i < Lanes(x) + Lanes(y); ++i) mask.push_back(i);
    return b_.CreateShuffleVector(x, y, mask);
  }
  if (name == "call_extern" || name == "call_pure_extern") {
    const auto* fn = args.empty() ? nullptr : args[0].as<StringImmNode>();
    if (fn == nullptr) {
      Fail("call_extern needs the callee name as its first argument");
      return Undef(t);
    }
    std::vector<llvm::Type*> types;
    std::vector<llvm::Value*> values;
    for (size_t i = 1; i < args.size(); ++i) {
      values.push_back(arg(i));
      types.push_back(values.back()->getType());
    }
    return b_.CreateCall(Extern(fn->value, LType(t), types), values);
  }
  Fail(absl::StrCat("the LLVM backend does not support T.", name));
  return Undef(t.is_void() ? DataType::Int(32) : t);
}

}  // namespace

absl::StatusOr<LLVMModule> GenerateLLVM(const ir::IRModule& lowered, llvm::TargetMachine* tm) {
  LLVMModule out;
  out.context = std::make_unique<llvm::LLVMContext>();
  {
    // The emitter (and any half-built module) goes before the context does.
    CodegenLLVM emitter(out.context.get(), tm);
    absl::Status st = emitter.Run(lowered, &out);
    if (!st.ok()) return st;
  }
  return out;
}

}  // namespace kiln::codegen
