// The LLVM emitter's statements: lets, asserts, loops, parallel loops, allocations, returns (see
// codegen_llvm_internal.h).
#include "compiler/target/llvm/codegen_llvm_internal.h"

namespace kiln::codegen::llvm_internal {

void CodegenLLVM::VisitStmt_(const LetStmtNode* op) {
  llvm::Value* v = VisitExpr(op->value);
  if (auto* inst = llvm::dyn_cast<llvm::Instruction>(v)) inst->setName(op->var->name);
  vars_[op->var.get()] = v;
  VisitStmt(op->body);
  vars_.erase(op->var.get());
}

void CodegenLLVM::VisitStmt_(const AttrStmtNode* op) {
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
void CodegenLLVM::EmitComputeScope(const AttrStmtNode* op) {
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

void CodegenLLVM::VisitStmt_(const AssertStmtNode* op) {
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

void CodegenLLVM::VisitStmt_(const BufferStoreNode* op) {
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
void CodegenLLVM::LoopHints(llvm::BranchInst* latch, ForKind kind) {
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
void CodegenLLVM::EmitSerialLoop(const VarNode* var, llvm::Value* begin, llvm::Value* end, llvm::Value* step,
                                 bool is_signed, const Stmt& body, ForKind kind) {
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

void CodegenLLVM::VisitStmt_(const ForNode* op) {
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
void CodegenLLVM::EmitParallel(const ForNode* op) {
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

void CodegenLLVM::VisitStmt_(const WhileNode* op) {
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

void CodegenLLVM::Jump(bool is_break) {
  if (fs_.loops.empty()) {
    Fail(is_break ? "break outside a loop" : "continue outside a loop");
    return;
  }
  const LoopTargets& l = fs_.loops.back();
  for (size_t i = fs_.heap.size(); i > l.heap_depth; --i) CallFree(fs_.heap[i - 1]);
  b_.CreateBr(is_break ? l.break_to : l.continue_to);
  StartDeadBlock();
}

void CodegenLLVM::VisitStmt_(const IfThenElseNode* op) {
  llvm::Value* c = VisitExpr(op->condition);
  // An integer condition (TVM allows one) is true when nonzero.
  if (!c->getType()->isIntegerTy(1)) c = b_.CreateICmpNE(c, llvm::Constant::getNullValue(c->getType()));
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fs_.fn);
  llvm::BasicBlock* end = llvm::BasicBlock::Create(ctx_, "if.end", fs_.fn);
  llvm::BasicBlock* else_bb = op->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "if.else", fs_.fn) : end;
  // The branch to a failed check of checked mode is as unlikely as a failed assert's.
  const auto* eval = op->then_case.as<EvaluateNode>();
  if (eval != nullptr && driver::FailedCheck(eval) != nullptr && !op->else_case.defined()) {
    b_.CreateCondBr(c, then_bb, else_bb, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
  } else {
    b_.CreateCondBr(c, then_bb, else_bb);
  }
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

void CodegenLLVM::VisitStmt_(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}

void CodegenLLVM::VisitStmt_(const EvaluateNode* op) {
  if (driver::IsNoOpEvaluate(op)) return;
  // Evaluate(tirx.ret(v)) returns v; any other call is evaluated for its effect.
  if (PrimExpr v = driver::ReturnedValue(op); v.defined()) return EmitReturn(v);
  if (const CallNode* check = driver::FailedCheck(op)) return EmitFailedCheck(check);
  VisitExpr(op->value);
}

void CodegenLLVM::EmitReturn(const PrimExpr& e) {
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

void CodegenLLVM::VisitStmt_(const AllocBufferNode* op) {
  const Buffer& buf = op->buffer;
  if (op->annotations.count(String(driver::kDeviceAllocAttr))) {
    EmitDeviceAlloc(op);
    return;
  }
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

// A device buffer of host code (driver::kDeviceAllocAttr): env->device_alloc(launcher, bytes,
// result), freed with env->device_free at the end of its scope. An early exit leaves it to the
// launcher, which frees what a failed call left behind.
void CodegenLLVM::EmitDeviceAlloc(const AllocBufferNode* op) {
  const Buffer& buf = op->buffer;
  llvm::Value* size = b_.getInt64(buf->dtype.bits() == 1 ? 1 : buf->dtype.StorageBytes());
  for (const PrimExpr& d : buf->shape) size = b_.CreateMul(size, b_.CreateIntCast(VisitExpr(d), i64_, d.dtype().is_int()));
  llvm::BasicBlock* none = llvm::BasicBlock::Create(ctx_, "dalloc.none", fs_.fn);
  llvm::BasicBlock* has_env = llvm::BasicBlock::Create(ctx_, "dalloc.env", fs_.fn);
  llvm::BasicBlock* call = llvm::BasicBlock::Create(ctx_, "dalloc.call", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNull(fs_.self), none, has_env);
  b_.SetInsertPoint(has_env);
  llvm::Value* alloc = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, fs_.self, 4));
  b_.CreateCondBr(b_.CreateIsNull(alloc), none, call);
  b_.SetInsertPoint(none);
  EmitFail(absl::StrCat("RuntimeError: cannot allocate device buffer ", buf->name,
                        ": the caller lent no device allocator (host code of a GPU target runs in the VM)"));
  b_.SetInsertPoint(call);
  llvm::Value* launcher = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, fs_.self, 3));
  llvm::FunctionType* alloc_ty = llvm::FunctionType::get(ptr_, {ptr_, i64_, ptr_}, false);
  llvm::Value* p = b_.CreateCall(alloc_ty, alloc, {launcher, size, fs_.result});
  llvm::BasicBlock* failed = llvm::BasicBlock::Create(ctx_, "dalloc.failed", fs_.fn);
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "dalloc.ok", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNull(p), failed, ok);
  b_.SetInsertPoint(failed);
  EmitExit(fs_.packed || fs_.in_parallel ? b_.getInt32(-1) : nullptr);
  b_.SetInsertPoint(ok);
  vars_[buf->data.get()] = p;
  VisitStmt(op->body);
  vars_.erase(buf->data.get());
  if (b_.GetInsertBlock()->getTerminator() == nullptr) {
    llvm::Value* free_fn = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, fs_.self, 5));
    llvm::Value* launcher2 = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, fs_.self, 3));
    b_.CreateCall(llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_}, false), free_fn, {launcher2, p});
  }
}

}  // namespace kiln::codegen::llvm_internal
