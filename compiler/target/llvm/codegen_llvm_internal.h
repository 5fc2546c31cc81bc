// The LLVM backend's emitter, shared by its source files (internal to :codegen_llvm; the interface
// is codegen_llvm.h): the CodegenLLVM class, a TIR visitor that builds one llvm::Module, with its
// members defined by section in
//   codegen_llvm.cc             the module, types, functions (entries, helpers, outlined bodies)
//   codegen_llvm_expr.cc        expressions
//   codegen_llvm_memory.cc      buffer addresses, loads and stores
//   codegen_llvm_stmt.cc        statements (loops, parallel loops, allocations, asserts)
//   codegen_llvm_intrinsics.cc  calls: tirx intrinsics, math functions, struct access, extern calls
#ifndef KILN_COMPILER_TARGET_LLVM_CODEGEN_LLVM_INTERNAL_H_
#define KILN_COMPILER_TARGET_LLVM_CODEGEN_LLVM_INTERNAL_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/target/llvm/codegen_llvm.h"
#include "compiler/tir/analysis/free_vars.h"
#include "compiler/tir/functor.h"
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

namespace kiln::codegen::llvm_internal {

using namespace ir;  // NOLINT

inline constexpr int64_t kStackLimit = 16 * 1024;
inline constexpr unsigned kTempAlign = 64;

// The libm name of a float math function for float32 (`f` suffix) or float64.
inline std::string LibmName(const std::string& base, llvm::Type* scalar) {
  return scalar->isDoubleTy() ? base : base + "f";
}

inline bool HasLoadOrCall(const PrimExpr& e) {
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
  absl::Status Run(const IRModule& mod, LLVMModule* out);

 protected:
  // Protected, not private: the GPU backends (codegen_gpu.cc) extend this emitter with kernels,
  // thread indices, shared memory and barriers.
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
  void InitTypes();
  void Fail(const std::string& msg);
  // A construct the backend cannot compile yet: UNIMPLEMENTED, naming where it is written.
  void FailUnimplemented(const std::string& msg, const ir::Span& where);

  // ---------------- types: codegen_llvm.cc
  llvm::Type* LType(DataType t);
  llvm::Type* StorageType(DataType t);
  llvm::Type* WithLanes(llvm::Type* scalar, int lanes);
  static int Lanes(llvm::Value* v);
  llvm::Value* Splat(llvm::Value* v, int lanes);
  llvm::Value* BF16ToF32(llvm::Value* bits);
  llvm::Value* F32ToBF16(llvm::Value* f);
  // Rounds a float (compute form of bfloat16) to the nearest bfloat16 value.
  llvm::Value* RoundBF16(llvm::Value* f) { return BF16ToF32(F32ToBF16(f)); }
  llvm::Value* ToStorage(llvm::Value* v, DataType elem);
  llvm::Value* FromStorage(llvm::Value* v, DataType elem);

  // ---------------- functions: codegen_llvm.cc
  void Declare(const std::string& name, const PrimFuncNode* f);
  static DataType RetDType(const PrimFuncNode* f);
  void SetAttributes(llvm::Function* fn);
  void EmitFunction(const std::string& name, const PrimFuncNode* f);
  void EmitExit(llvm::Value* value);
  void FinishFunction();
  void StartDeadBlock() { b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "after", fs_.fn)); }
  void EmitFail(const std::string& msg);
  void EmitFailedCheck(const CallNode* op);
  llvm::BasicBlock* SharedFailBlock(llvm::Constant* message, llvm::BasicBlock* from);
  void StoreResult(int32_t type_index, llvm::Value* payload);
  llvm::Constant* GlobalString(const std::string& s);
  void EmitKernelTable(const std::vector<std::string>& kernels);
  llvm::FunctionCallee Extern(const std::string& name, llvm::Type* ret, std::vector<llvm::Type*> args);
  void CallFree(llvm::Value* p) { b_.CreateCall(Extern("free", b_.getVoidTy(), {ptr_}), {p}); }
  llvm::AllocaInst* EntryAlloca(llvm::Type* ty, uint64_t count, unsigned align);

  // ---------------- expressions: codegen_llvm_expr.cc
  llvm::Value* VisitExprDefault_(const Object* op) override;
  llvm::Value* Undef(DataType t) { return llvm::UndefValue::get(LType(t)); }
  llvm::Value* VisitExpr_(const VarNode* op) override;
  llvm::Value* VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }
  llvm::Value* VisitExpr_(const IntImmNode* op) override;
  llvm::Value* VisitExpr_(const FloatImmNode* op) override;
  llvm::Value* VisitExpr_(const StringImmNode* op) override { return GlobalString(op->value); }
  llvm::Value* Convert(llvm::Value* v, DataType from, DataType to);
  llvm::Value* VisitExpr_(const CastNode* op) override;
  std::pair<llvm::Value*, llvm::Value*> Operands(const BinaryNode* op);
  llvm::Value* Finish(DataType t, llvm::Value* v) { return t.element_of().is_bfloat() ? RoundBF16(v) : v; }
  llvm::Value* VisitExpr_(const AddNode* op) override;
  llvm::Value* VisitExpr_(const SubNode* op) override;
  llvm::Value* VisitExpr_(const MulNode* op) override;
  llvm::Value* VisitExpr_(const DivNode* op) override;
  llvm::Value* VisitExpr_(const ModNode* op) override;
  llvm::Value* Floor(llvm::Value* x);
  std::pair<llvm::Value*, llvm::Value*> WidenHalf(llvm::Value* a, llvm::Value* b);
  llvm::Value* NarrowLike(llvm::Value* v, llvm::Value* like);
  llvm::Value* VisitExpr_(const FloorDivNode* op) override;
  llvm::Value* VisitExpr_(const FloorModNode* op) override;
  llvm::Value* VisitExpr_(const MinNode* op) override;
  llvm::Value* VisitExpr_(const MaxNode* op) override;
  llvm::Value* Less(DataType t, llvm::Value* a, llvm::Value* b);
  enum class Cmp { kEQ, kNE, kLT, kLE, kGT, kGE };
  llvm::Value* Compare(const BinaryNode* op, Cmp c);
  llvm::Value* VisitExpr_(const EQNode* op) override { return Compare(op, Cmp::kEQ); }
  llvm::Value* VisitExpr_(const NENode* op) override { return Compare(op, Cmp::kNE); }
  llvm::Value* VisitExpr_(const LTNode* op) override { return Compare(op, Cmp::kLT); }
  llvm::Value* VisitExpr_(const LENode* op) override { return Compare(op, Cmp::kLE); }
  llvm::Value* VisitExpr_(const GTNode* op) override { return Compare(op, Cmp::kGT); }
  llvm::Value* VisitExpr_(const GENode* op) override { return Compare(op, Cmp::kGE); }
  llvm::Value* Logical(const BinaryNode* op, bool is_and);
  llvm::Value* VisitExpr_(const AndNode* op) override { return Logical(op, true); }
  llvm::Value* VisitExpr_(const OrNode* op) override { return Logical(op, false); }
  llvm::Value* VisitExpr_(const NotNode* op) override { return b_.CreateNot(VisitExpr(op->a)); }
  llvm::Value* VisitExpr_(const SelectNode* op) override;
  llvm::Value* LaneIds(llvm::Type* scalar, int lanes);
  llvm::Value* VisitExpr_(const RampNode* op) override;
  llvm::Value* VisitExpr_(const BroadcastNode* op) override { return Splat(VisitExpr(op->value), op->lanes); }
  llvm::Value* VisitExpr_(const ShuffleNode* op) override;
  llvm::Value* VisitExpr_(const LetNode* op) override;

  // ---------------- memory: codegen_llvm_memory.cc
  llvm::Value* BufferPtr(const Buffer& buf);
  const RampNode* DenseRamp(const PrimExpr& index);
  llvm::Value* Index64(llvm::Value* i, bool is_signed);
  llvm::Value* Mask(const PrimExpr& predicate, int lanes);
  llvm::Value* VisitExpr_(const BufferLoadNode* op) override;

  // ---------------- calls and intrinsics: codegen_llvm_intrinsics.cc
  llvm::Value* VisitExpr_(const CallNode* op) override;
  llvm::Value* CallIntrinsic(const std::string& name, const CallNode* op);
  llvm::Value* MathCall(const std::string& name, const CallNode* op);
  llvm::Value* StructGet(const CallNode* op);
  llvm::Value* DeviceLaunch(const CallNode* op);
  llvm::Value* Libm(const std::string& base, const std::vector<llvm::Value*>& args);

  // ---------------- statements: codegen_llvm_stmt.cc
  void VisitStmtDefault_(const Object* op) override { Fail(absl::StrCat("unsupported statement ", op->type_key())); }
  void VisitStmt_(const LetStmtNode* op) override;
  void VisitStmt_(const AttrStmtNode* op) override;
  void EmitComputeScope(const AttrStmtNode* op);
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
  void VisitStmt_(const AssertStmtNode* op) override;
  void VisitStmt_(const BufferStoreNode* op) override;
  void LoopHints(llvm::BranchInst* latch, ForKind kind);
  void EmitSerialLoop(const VarNode* var, llvm::Value* begin, llvm::Value* end, llvm::Value* step, bool is_signed,
                      const Stmt& body, ForKind kind);
  void VisitStmt_(const ForNode* op) override;
  void EmitParallel(const ForNode* op);
  void VisitStmt_(const WhileNode* op) override;
  void Jump(bool is_break);
  void VisitStmt_(const BreakNode*) override { Jump(true); }
  void VisitStmt_(const ContinueNode*) override { Jump(false); }
  void VisitStmt_(const IfThenElseNode* op) override;
  void VisitStmt_(const SeqStmtNode* op) override;
  void VisitStmt_(const EvaluateNode* op) override;
  void EmitReturn(const PrimExpr& e);
  void VisitStmt_(const AllocBufferNode* op) override;
  void EmitDeviceAlloc(const AllocBufferNode* op);
  void VisitStmt_(const DeclBufferNode* op) override { VisitStmt(op->body); }
  llvm::LLVMContext& ctx_;
  llvm::TargetMachine* tm_;
  llvm::IRBuilder<> b_;
  std::unique_ptr<llvm::Module> module_;
  llvm::Type *i1_, *i8_, *i16_, *i32_, *i64_, *f32_;
  llvm::PointerType* ptr_;
  llvm::StructType *any_ty_, *tensor_ty_, *env_ty_;
  llvm::FunctionType *kernel_fn_ty_, *body_fn_ty_, *parallel_for_ty_, *device_launch_ty_;
  std::map<std::string, std::pair<llvm::Function*, const PrimFuncNode*>> functions_;
  std::map<std::string, llvm::Constant*> strings_;
  std::unordered_map<const VarNode*, llvm::Value*> vars_;
  std::vector<llvm::Function*> emitted_;  // functions whose blocks FinishFunction closes
  FunctionState fs_;
  std::string fname_;
  absl::Status status_;
};

}  // namespace kiln::codegen::llvm_internal

#endif  // KILN_COMPILER_TARGET_LLVM_CODEGEN_LLVM_INTERNAL_H_
