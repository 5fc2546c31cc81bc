// The LLVM emitter's calls: tirx intrinsics, math functions (LLVM intrinsics or libm), DLTensor and
// KilnAny field access, calls to other PrimFuncs and extern functions (see codegen_llvm_internal.h).
#include "compiler/target/llvm/codegen_llvm_internal.h"

namespace kiln::codegen::llvm_internal {

// Applies a scalar libm function lane by lane (float16 goes through float).
llvm::Value* CodegenLLVM::Libm(const std::string& base, const std::vector<llvm::Value*>& args) {
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
    llvm::Value* ret = b_.CreateCall(fn, args);
    // A failed assert in the callee left its message in the result slot: pass the failure on.
    llvm::Value* kind = b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(any_ty_, fs_.result, 0));
    llvm::BasicBlock* fail = llvm::BasicBlock::Create(ctx_, "call.fail", fs_.fn);
    llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "call.ok", fs_.fn);
    llvm::MDNode* weights = llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20);
    llvm::Value* failed = b_.CreateOr(b_.CreateICmpEQ(kind, b_.getInt32(kKilnErrorMessage)),
                                      b_.CreateICmpEQ(kind, b_.getInt32(kKilnErrorMessageOwned)));
    b_.CreateCondBr(failed, fail, cont, weights);
    b_.SetInsertPoint(fail);
    EmitExit(fs_.packed || fs_.in_parallel ? b_.getInt32(-1) : nullptr);
    b_.SetInsertPoint(cont);
    return ret;
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
  if (name == "tvm_call_packed") return DeviceLaunch(op);
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
  FailUnimplemented(absl::StrCat("the LLVM backend does not support T.", name), op->span);
  return Undef(t.is_void() ? DataType::Int(32) : t);
}

// T.call_packed(kernel, args...) in host code: args become KilnAny (handles as opaque pointers,
// ints as int64, floats as double, in the launch convention of runtime/device/device_module.h) and
// go to env->device_launch(env->launcher, kernel, args, n, result). Evaluates to 0; a failure
// leaves through the function's error exit with the launcher's message already in `result`.
llvm::Value* CodegenLLVM::DeviceLaunch(const CallNode* op) {
  const auto* kernel = op->args.empty() ? nullptr : op->args[0].as<StringImmNode>();
  if (kernel == nullptr) {
    Fail("T.call_packed needs the callee's name as its first argument");
    return b_.getInt32(0);
  }
  int n = static_cast<int>(op->args.size()) - 1;
  llvm::Value* args = EntryAlloca(any_ty_, std::max(n, 1), 8);
  for (int i = 0; i < n; ++i) {
    const PrimExpr& a = op->args[i + 1];
    DataType t = a.dtype();
    llvm::Value* v = VisitExpr(a);
    int32_t type_index = kKilnInt;
    llvm::Value* payload = nullptr;
    if (t.lanes() != 1) {
      Fail(absl::StrCat("T.call_packed argument #", i + 1, " is a vector (", t.ToString(), ")"));
      return b_.getInt32(0);
    } else if (t.is_handle()) {
      type_index = kKilnOpaquePtr;
      payload = b_.CreatePtrToInt(v, i64_);
    } else if (t.is_bool()) {
      type_index = kKilnBool;
      payload = b_.CreateZExt(v, i64_);
    } else if (t.is_int() || t.is_uint()) {
      payload = b_.CreateIntCast(v, i64_, t.is_int());
    } else if (t.is_floating()) {
      type_index = kKilnFloat;
      payload = b_.CreateBitCast(b_.CreateFPCast(v, b_.getDoubleTy()), i64_);
    } else {
      Fail(absl::StrCat("T.call_packed argument #", i + 1, " of type ", t.ToString(), " is not supported"));
      return b_.getInt32(0);
    }
    llvm::Value* slot = b_.CreateGEP(any_ty_, args, b_.getInt64(i));
    b_.CreateStore(b_.getInt32(type_index), b_.CreateStructGEP(any_ty_, slot, 0));
    b_.CreateStore(b_.getInt32(0), b_.CreateStructGEP(any_ty_, slot, 1));
    b_.CreateStore(payload, b_.CreateStructGEP(any_ty_, slot, 2));
  }
  llvm::BasicBlock* no_launcher = llvm::BasicBlock::Create(ctx_, "launch.none", fs_.fn);
  llvm::BasicBlock* has_env = llvm::BasicBlock::Create(ctx_, "launch.env", fs_.fn);
  llvm::BasicBlock* call = llvm::BasicBlock::Create(ctx_, "launch.call", fs_.fn);
  b_.CreateCondBr(b_.CreateIsNull(fs_.self), no_launcher, has_env);
  b_.SetInsertPoint(has_env);
  llvm::Value* launch = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, fs_.self, 2));
  b_.CreateCondBr(b_.CreateIsNull(launch), no_launcher, call);
  b_.SetInsertPoint(no_launcher);
  EmitFail(absl::StrCat("RuntimeError: cannot launch device kernel ", kernel->value,
                        ": the caller lent no device launcher (host code of a GPU target runs in the VM, "
                        "which loads the executable's device blobs)"));
  b_.SetInsertPoint(call);
  llvm::Value* launcher = b_.CreateLoad(ptr_, b_.CreateStructGEP(env_ty_, fs_.self, 3));
  llvm::Value* rc = b_.CreateCall(device_launch_ty_, launch,
                                  {launcher, GlobalString(kernel->value), args, b_.getInt32(n), fs_.result});
  llvm::BasicBlock* failed = llvm::BasicBlock::Create(ctx_, "launch.failed", fs_.fn);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "launch.ok", fs_.fn);
  b_.CreateCondBr(b_.CreateICmpEQ(rc, b_.getInt32(0)), cont, failed);
  b_.SetInsertPoint(failed);
  EmitExit(fs_.packed || fs_.in_parallel ? b_.getInt32(-1) : nullptr);
  b_.SetInsertPoint(cont);
  return b_.getInt32(0);
}

}  // namespace kiln::codegen::llvm_internal
