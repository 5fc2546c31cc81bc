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
// - A failed check of checked mode (Evaluate(tirx.check_failure(...))) formats its message with
//   snprintf into malloc'ed memory: {kKilnErrorMessageOwned, msg}, freed by the caller.
// - After a direct call of a helper PrimFunc the result slot is read: a helper's failed assert
//   fails its caller too, up to the entry (the C backend does the same).
// - A packed entry's compute_scope (the body after MakePackedAPI's checks) is outlined into an
//   internal "<name>_compute_" function, and the entry is optnone (see EmitComputeScope).
// - Parallel loops are outlined into a KilnParallelBody whose captured variables travel in a
//   closure struct, and run through env->parallel_for (serially when `self` is NULL); a parallel
//   loop nested in one runs serially.
// - T.call_packed("<kernel>", args...) (the launches SplitHostDevice leaves in host code of GPU
//   targets) packs its args into KilnAny and calls env->device_launch; a missing env or launcher,
//   or a failed launch, fails the call with the launcher's message in the result slot.
#include "compiler/target/llvm/codegen_llvm.h"

#include "compiler/target/llvm/codegen_llvm_internal.h"
#include "compiler/tir/analysis/scalable_vectors.h"

namespace kiln::codegen::llvm_internal {

// Fills out->module and out->kernel_names (out->context is the context this emitter uses).
absl::Status CodegenLLVM::Run(const IRModule& mod, LLVMModule* out) {
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

void CodegenLLVM::InitTypes() {
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
  env_ty_ = llvm::StructType::create(ctx_, {ptr_, ptr_, ptr_, ptr_, ptr_, ptr_}, "KilnKernelEnv");
  kernel_fn_ty_ = llvm::FunctionType::get(i32_, {ptr_, ptr_, i32_, ptr_}, false);
  body_fn_ty_ = llvm::FunctionType::get(i32_, {i64_, i64_, ptr_}, false);
  parallel_for_ty_ = llvm::FunctionType::get(i32_, {ptr_, i64_, ptr_, ptr_}, false);
  device_launch_ty_ = llvm::FunctionType::get(i32_, {ptr_, ptr_, ptr_, i32_, ptr_}, false);
}

void CodegenLLVM::Fail(const std::string& msg) {
  if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("LLVM codegen (", fname_, "): ", msg));
}

void CodegenLLVM::FailUnimplemented(const std::string& msg, const ir::Span& where) {
  if (!status_.ok()) return;
  std::string at = where.defined() ? absl::StrCat(" at ", where.ToString()) : "";
  status_ = absl::UnimplementedError(absl::StrCat("LLVM codegen (", fname_, "): ", msg, at));
}

// The register type of a dtype (bool = i1, bfloat16 computes in float).
llvm::Type* CodegenLLVM::LType(DataType t) {
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
llvm::Type* CodegenLLVM::StorageType(DataType t) {
  DataType e = t.element_of();
  llvm::Type* s = e.is_bool() ? i8_ : e.is_bfloat() ? i16_ : LType(e);
  return t.lanes() > 1 ? llvm::FixedVectorType::get(s, t.lanes()) : s;
}

llvm::Type* CodegenLLVM::WithLanes(llvm::Type* scalar, int lanes) {
  return lanes > 1 ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
}

int CodegenLLVM::Lanes(llvm::Value* v) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  return vt ? static_cast<int>(vt->getNumElements()) : 1;
}

// Splats a scalar to `lanes` (no-op for lanes == 1 or an already-vector value).
llvm::Value* CodegenLLVM::Splat(llvm::Value* v, int lanes) {
  if (lanes <= 1 || v->getType()->isVectorTy()) return v;
  return b_.CreateVectorSplat(lanes, v);
}

// bfloat16 <-> float, bit-exact with the C backend's kiln_bf16_to_f32 / kiln_f32_to_bf16.
llvm::Value* CodegenLLVM::BF16ToF32(llvm::Value* bits) {
  int lanes = Lanes(bits);
  llvm::Value* w = b_.CreateShl(b_.CreateZExt(bits, WithLanes(i32_, lanes)), Splat(b_.getInt32(16), lanes));
  return b_.CreateBitCast(w, WithLanes(f32_, lanes));
}

llvm::Value* CodegenLLVM::F32ToBF16(llvm::Value* f) {
  int lanes = Lanes(f);
  auto c = [&](uint32_t v) { return Splat(b_.getInt32(v), lanes); };
  llvm::Value* u = b_.CreateBitCast(f, WithLanes(i32_, lanes));
  llvm::Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(u, c(0x7fffffffu)), c(0x7f800000u));
  llvm::Value* quiet = b_.CreateOr(b_.CreateLShr(u, c(16)), c(0x40));
  llvm::Value* bias = b_.CreateAdd(c(0x7fffu), b_.CreateAnd(b_.CreateLShr(u, c(16)), c(1)));
  llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(u, bias), c(16));
  return b_.CreateTrunc(b_.CreateSelect(is_nan, quiet, rounded), WithLanes(i16_, lanes));
}

llvm::Value* CodegenLLVM::ToStorage(llvm::Value* v, DataType elem) {
  if (elem.is_bool()) return b_.CreateZExt(v, WithLanes(i8_, Lanes(v)));
  if (elem.is_bfloat()) return F32ToBF16(v);
  return v;
}

llvm::Value* CodegenLLVM::FromStorage(llvm::Value* v, DataType elem) {
  if (elem.is_bool()) return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  if (elem.is_bfloat()) return BF16ToF32(v);
  return v;
}

void CodegenLLVM::Declare(const std::string& name, const PrimFuncNode* f) {
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

DataType CodegenLLVM::RetDType(const PrimFuncNode* f) {
  const auto* pt = f->ret_type.defined() ? f->ret_type.as<PrimTypeNode>() : nullptr;
  return pt != nullptr && !pt->dtype.is_void() ? pt->dtype : DataType::Int(32);
}

void CodegenLLVM::SetAttributes(llvm::Function* fn) {
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr("target-cpu", tm_->getTargetCPU());
  if (!tm_->getTargetFeatureString().empty()) fn->addFnAttr("target-features", tm_->getTargetFeatureString());
}

void CodegenLLVM::EmitFunction(const std::string& name, const PrimFuncNode* f) {
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
void CodegenLLVM::EmitExit(llvm::Value* value) {
  for (auto it = fs_.heap.rbegin(); it != fs_.heap.rend(); ++it) CallFree(*it);
  llvm::Type* ret = fs_.fn->getReturnType();
  if (value == nullptr) value = llvm::Constant::getNullValue(ret);
  b_.CreateRet(value);
  StartDeadBlock();
}

// Closes the blocks that code after a return/break/failed assert left open: they have no
// predecessors, so they end in `unreachable` (LLVM deletes them).
void CodegenLLVM::FinishFunction() {
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

// Writes {kKilnErrorMessage, msg} to the result slot and exits with -1.
void CodegenLLVM::EmitFail(const std::string& msg) {
  StoreResult(kKilnErrorMessage, GlobalString(msg));
  if (fs_.packed || fs_.in_parallel) {
    EmitExit(b_.getInt32(-1));
  } else {
    EmitExit(nullptr);
  }
}

// A failed check of checked mode (driver::FailedCheck): the message is formatted with snprintf
// into malloc'ed memory that the caller frees ({kKilnErrorMessageOwned, msg}). Its size is known
// here: the text plus at most 20 characters per integer. Without memory the text alone is left,
// as a constant message.
void CodegenLLVM::EmitFailedCheck(const CallNode* op) {
  std::string format, text;
  std::vector<llvm::Value*> values;
  for (const PrimExpr& part : op->args) {
    if (const auto* s = part.as<StringImmNode>()) {
      for (char c : s->value) format += c == '%' ? std::string("%%") : std::string(1, c);
      text += s->value;
      continue;
    }
    if (!part.dtype().is_scalar() || !part.dtype().is_int_or_bool()) {
      Fail(absl::StrCat("T.check_failure takes strings and integer scalars, not ", part.dtype().ToString()));
      return;
    }
    format += part.dtype().is_uint() ? "%llu" : "%lld";
    text += "?";
    values.push_back(b_.CreateIntCast(VisitExpr(part), i64_, part.dtype().is_int()));
  }
  uint64_t size = format.size() + 21 * values.size() + 1;
  llvm::Value* msg = b_.CreateCall(Extern("malloc", ptr_, {i64_}), {b_.getInt64(size)});
  llvm::BasicBlock* formatted = llvm::BasicBlock::Create(ctx_, "check.format", fs_.fn);
  llvm::BasicBlock* no_memory = llvm::BasicBlock::Create(ctx_, "check.nomem", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNull(msg), no_memory, formatted);
  b_.SetInsertPoint(no_memory);
  EmitFail(text);
  b_.SetInsertPoint(formatted);
  llvm::FunctionCallee snprintf =
      module_->getOrInsertFunction("snprintf", llvm::FunctionType::get(i32_, {ptr_, i64_, ptr_}, true));
  std::vector<llvm::Value*> args = {msg, b_.getInt64(size), GlobalString(format)};
  args.insert(args.end(), values.begin(), values.end());
  b_.CreateCall(snprintf, args);
  StoreResult(kKilnErrorMessageOwned, msg);
  EmitExit(fs_.packed || fs_.in_parallel ? b_.getInt32(-1) : nullptr);
}

// The exit that failed asserts share when no temporaries are live: it receives the message through
// a phi, so each argument check costs one compare-and-branch instead of its own store-and-return
// block. Packed entries carry ~10 checks per argument; the smaller IR is much cheaper to optimize
// and compile.
llvm::BasicBlock* CodegenLLVM::SharedFailBlock(llvm::Constant* message, llvm::BasicBlock* from) {
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

void CodegenLLVM::StoreResult(int32_t type_index, llvm::Value* payload) {
  b_.CreateStore(b_.getInt32(type_index), b_.CreateStructGEP(any_ty_, fs_.result, 0));
  b_.CreateStore(b_.getInt32(0), b_.CreateStructGEP(any_ty_, fs_.result, 1));
  b_.CreateStore(payload, b_.CreateStructGEP(any_ty_, fs_.result, 2));
}

llvm::Constant* CodegenLLVM::GlobalString(const std::string& s) {
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

void CodegenLLVM::EmitKernelTable(const std::vector<std::string>& kernels) {
  std::string table;
  for (const std::string& k : kernels) table += k + '\0';
  llvm::Constant* data = llvm::ConstantDataArray::getString(ctx_, table, true);  // the final NUL
  auto* gv = new llvm::GlobalVariable(*module_, data->getType(), true, llvm::GlobalValue::ExternalLinkage, data,
                                      KILN_KERNEL_TABLE_SYMBOL);
  gv->setAlignment(llvm::Align(1));
}

llvm::FunctionCallee CodegenLLVM::Extern(const std::string& name, llvm::Type* ret, std::vector<llvm::Type*> args) {
  return module_->getOrInsertFunction(name, llvm::FunctionType::get(ret, args, false));
}

llvm::AllocaInst* CodegenLLVM::EntryAlloca(llvm::Type* ty, uint64_t count, unsigned align) {
  llvm::IRBuilder<> entry(&fs_.fn->getEntryBlock(), fs_.fn->getEntryBlock().begin());
  llvm::AllocaInst* a = entry.CreateAlloca(ty, entry.getInt64(count));
  a->setAlignment(llvm::Align(align));
  return a;
}
}  // namespace kiln::codegen::llvm_internal

namespace kiln::codegen {

absl::StatusOr<LLVMModule> GenerateLLVM(const ir::IRModule& lowered, llvm::TargetMachine* tm) {
  absl::Status scalable = tir::RejectScalableVectors(lowered, "the LLVM backend");
  if (!scalable.ok()) return scalable;
  LLVMModule out;
  out.context = std::make_unique<llvm::LLVMContext>();
  {
    // The emitter (and any half-built module) goes before the context does.
    llvm_internal::CodegenLLVM emitter(out.context.get(), tm);
    absl::Status st = emitter.Run(lowered, &out);
    if (!st.ok()) return st;
  }
  return out;
}

}  // namespace kiln::codegen
