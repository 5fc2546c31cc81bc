// MakePackedAPI: turns each exported PrimFunc (one with a global_symbol) into a kernel ABI entry
// (runtime/kernel_abi.h)
//
//     int32_t f(void* self, const KilnAny* args, int32_t num_args, KilnAny* result)
//
// whose body unpacks `args` into the original parameters and checks every argument before running
// the original body, because a kernel is called across a process/library boundary with values the
// compiler never saw. The list of checks and their messages comes from KernelAbiChecks
// (compiler/tir/analysis/abi_checks.h), which the reference interpreter evaluates too; this pass
// emits each as TIR. The checks, in order (each an AssertStmt; the backend returns -1 with
// "<error_kind>: <message>" in `result` when one fails):
//
//   1. num_args == number of params                                      TypeError
//   2. per param, its type_index: a buffer wants a DLTensor* (kKilnDLTensorPtr, or an opaque
//      pointer holding one); an int/uint param Int or Bool; a bool param Bool or Int; a float param
//      Float, Int or Bool (cast); a handle param a pointer, a tensor or None. Then the parameter
//      variable is bound: scalars cast to their dtype, buffers and handles to the pointer.  TypeError
//   3. per buffer param (DLTensor t, Buffer b):
//      - t != NULL                                                        TypeError
//      - t->ndim == len(b.shape)                                          ValueError
//      - t->dtype == b.dtype (code, bits, lanes; a bool buffer accepts uint1 and DLPack's kDLBool
//        8-bit bool)                                                      TypeError
//      - per dim k: b.shape[k] an integer -> must equal t->shape[k]; an unbound variable -> bound to
//        t->shape[k] (first occurrence binds, later occurrences check); a bound variable or an
//        expression -> must equal t->shape[k]                             ValueError
//      - strides: b declares none -> t->strides is NULL or compact row-major (dims of extent 1 may
//        have any stride); b declares strides -> each one bound/checked like a shape dim against
//        t->strides[k] (or the compact stride when t->strides is NULL)  ValueError
//      - byte_offset: b.elem_offset absent or constant c -> t->byte_offset == c * elem_bytes; a
//        variable -> byte_offset must be a multiple of elem_bytes and binds it to
//        byte_offset / elem_bytes (the flattened indices add it)       ValueError
//      - the data pointer is bound to b.data; it must be non-NULL unless the tensor is empty, and
//        aligned to the element size (b.data_alignment is an allocation hint and is not checked:
//        host frameworks such as numpy hand out 16-byte aligned arrays)  ValueError
//      - t->device.device_type == the target's (kDLCPU for llvm/c)        ValueError
//
// Messages name the function, the argument and the constraint, e.g.
//   "add: argument A.shape[0] has an unsatisfied constraint: 16 == A.shape[0]"
//   "add: argument A.dtype has an unsatisfied constraint: A.dtype == float32"
//   "add: expected 2 arguments (A, B)"
// The message text is constant (it lives in the kernel library), so it states the expected value,
// not the received one.
//
// After the checks, the original body sits in AttrStmt(0, "compute_scope", "<symbol>_compute_"),
// TVM's marker. The new function has params (self, args, num_args, result), an empty buffer_map,
// the original attrs plus calling_conv = kPackedCallingConv (compiler/driver/lowered_form.h), and
// the original ret_type (a returned value travels in `result` through tirx.ret). Functions without a global_symbol are internal helpers called directly from
// other PrimFuncs: they keep their signature, with each buffer param replaced by its data pointer.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/tir/analysis/abi_checks.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/op/builtin.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// KilnTypeIndex values (runtime/kernel_abi.h) the bindings below tell apart.
constexpr int kInt = 1, kFloat = 3;

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }
PrimExpr I64(int64_t v) { return IntImm(DataType::Int(64), v); }

PrimExpr StructGet(DataType t, const Var& handle, int index, StructField field) {
  return Call(t, Op("tirx.tvm_struct_get"), {handle, I32(index), I32(static_cast<int>(field))});
}
PrimExpr IsNull(const PrimExpr& h) { return Call(DataType::Bool(), Op("tirx.isnullptr"), {h}); }
PrimExpr AnyOf(const PrimExpr& v, const std::vector<int>& values) {
  PrimExpr cond;
  for (int x : values) {
    PrimExpr eq = EQ(v, I32(x));
    cond = cond.defined() ? PrimExpr(Or(cond, eq)) : eq;
  }
  return cond;
}

// A read-only int64 array behind a handle (DLTensor shape / strides), loaded as a flat buffer.
Buffer Int64Array(const Var& data, const std::string& name, int64_t n) {
  auto b = make_object<BufferNode>();
  b->data = data;
  b->dtype = DataType::Int(64);
  b->shape = {I64(n)};
  b->name = name;
  return Buffer(ObjectPtr<Object>(std::move(b)));
}

// Collects the unpacking statements in order; Build() nests them around the body.
class Binder {
 public:
  void Let(const Var& v, const PrimExpr& value) { steps_.push_back({v, value, Stmt()}); }
  void Assert(const PrimExpr& cond, const AbiCheck& check) {
    steps_.push_back({Var(), PrimExpr(), AssertStmt(cond, check.error_kind, {String(check.message)})});
  }
  void Guarded(const PrimExpr& guard, const PrimExpr& cond, const AbiCheck& check) {
    Stmt a = AssertStmt(cond, check.error_kind, {String(check.message)});
    steps_.push_back({Var(), PrimExpr(), IfThenElse(guard, a)});
  }

  Stmt Build(Stmt body) const {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
      if (it->var.defined()) {
        body = LetStmt(it->var, it->value, body);
      } else {
        body = SeqStmt::Flatten({it->stmt, body});
      }
    }
    return body;
  }

 private:
  struct Step {
    Var var;  // defined: LetStmt var = value
    PrimExpr value;
    Stmt stmt;  // otherwise: a check
  };
  std::vector<Step> steps_;
};

// Emits each check of KernelAbiChecks as TIR reading the packed arguments.
class CheckEmitter {
 public:
  CheckEmitter(const PrimFunc& f, const Var& args, const Var& num_args, Binder* b)
      : f_(f), args_(args), num_args_(num_args), b_(b) {}

  void Emit(const AbiCheck& c) {
    switch (c.kind) {
      case AbiCheck::kNumArgs:
        return b_->Assert(EQ(num_args_, I32(c.value)), c);
      case AbiCheck::kTypeIndex:
        return EmitTypeIndex(c);
      case AbiCheck::kTensorNotNull:
        return b_->Assert(Not(IsNull(Handle(c))), c);
      case AbiCheck::kNDim:
        return b_->Assert(EQ(StructGet(DataType::Int(32), Handle(c), 0, StructField::kTensorNDim), I32(c.value)), c);
      case AbiCheck::kDType:
        return EmitDType(c);
      case AbiCheck::kShape:
        return BindOrCheck(c, tensors_[c.arg].dims[c.dim]);
      case AbiCheck::kCompactStrides:
        return EmitCompactStrides(c);
      case AbiCheck::kStride: {
        Tensor& t = Strides(c);
        PrimExpr actual = Call(DataType::Int(64), Op("tirx.if_then_else"),
                               {IsNull(t.strides_h), analyzer_.Simplify(t.compact[c.dim]),
                                BufferLoad(t.strides, {I32(c.dim)})});
        return BindOrCheck(c, actual);
      }
      case AbiCheck::kByteOffsetMultiple:
        b_->Assert(EQ(FloorMod(ByteOffset(c), I64(c.value)), I64(0)), c);
        return b_->Let(c.bind, CastTo(c.bind->dtype, FloorDiv(ByteOffset(c), I64(c.value))));
      case AbiCheck::kByteOffset:
        return b_->Assert(EQ(ByteOffset(c), c.expected), c);
      case AbiCheck::kDataNotNull:
        return EmitDataNotNull(c);
      case AbiCheck::kDataAligned: {
        PrimExpr addr = Cast(DataType::Int(64), Buf(c)->data);
        return b_->Assert(
            EQ(Call(DataType::Int(64), Op("tirx.bitwise_and"), {addr, I64(c.value - 1)}), I64(0)), c);
      }
      case AbiCheck::kDevice:
        return b_->Assert(
            EQ(StructGet(DataType::Int(32), Handle(c), 0, StructField::kTensorDeviceType), I32(c.value)), c);
    }
  }

 private:
  // What the checks of one tensor argument read: its shape array (bound after the dtype check),
  // its strides array (bound before the first strides check), the compact strides of its shape.
  struct Tensor {
    std::vector<PrimExpr> dims, compact;
    Var strides_h;
    Buffer strides;
  };

  Var Handle(const AbiCheck& c) const { return f_->params[c.arg]; }
  Buffer Buf(const AbiCheck& c) const { return f_->buffer_map.Get(Handle(c)); }
  PrimExpr ByteOffset(const AbiCheck& c) const {
    return StructGet(DataType::Int(64), Handle(c), 0, StructField::kTensorByteOffset);
  }

  void EmitTypeIndex(const AbiCheck& c) {
    const Var& p = f_->params[c.arg];
    Buffer buf = f_->buffer_map.Get(p);
    DataType t = p.dtype();
    Var tindex((buf.defined() ? buf->name : p->name) + "_type_index", DataType::Int(32));
    b_->Let(tindex, StructGet(DataType::Int(32), args_, c.arg, StructField::kArgTypeIndex));
    b_->Assert(AnyOf(tindex, c.type_indices), c);
    PrimExpr as_int = StructGet(DataType::Int(64), args_, c.arg, StructField::kArgInt64);
    switch (c.param_kind) {
      case AbiParamKind::kTensor:
      case AbiParamKind::kPointer:
        return b_->Let(p, StructGet(DataType::Handle(), args_, c.arg, StructField::kArgHandle));
      case AbiParamKind::kBool:
        return b_->Let(p, NE(as_int, I64(0)));
      case AbiParamKind::kInt:
        return b_->Let(p, Cast(t, as_int));
      case AbiParamKind::kFloat: {
        PrimExpr as_float = StructGet(DataType::Float(64), args_, c.arg, StructField::kArgFloat64);
        return b_->Let(p, Select(EQ(tindex, I32(kFloat)), Cast(t, as_float), Cast(t, as_int)));
      }
    }
  }

  void EmitDType(const AbiCheck& c) {
    Var handle = Handle(c);
    PrimExpr code = StructGet(DataType::Int(32), handle, 0, StructField::kTensorDTypeCode);
    PrimExpr bits = StructGet(DataType::Int(32), handle, 0, StructField::kTensorDTypeBits);
    PrimExpr lanes = StructGet(DataType::Int(32), handle, 0, StructField::kTensorDTypeLanes);
    DataType t = c.dtype;
    PrimExpr dtype_ok;
    if (t.is_bool()) {
      dtype_ok = And(Or(And(EQ(code, I32(DataType::kUInt)), EQ(bits, I32(1))),
                        And(EQ(code, I32(kDLBoolTypeCode)), EQ(bits, I32(8)))),
                     EQ(lanes, I32(t.lanes())));
    } else {
      dtype_ok = And(And(EQ(code, I32(t.code())), EQ(bits, I32(t.bits()))), EQ(lanes, I32(t.lanes())));
    }
    b_->Assert(dtype_ok, c);

    // The shape array, and the compact strides computed from the run-time shape.
    Buffer buf = Buf(c);
    const std::string& name = buf->name;
    int ndim = static_cast<int>(buf->shape.size());
    Var shape_h(name + "_shape", PointerType(PrimType(DataType::Int(64))));
    b_->Let(shape_h, StructGet(DataType::Handle(), handle, 0, StructField::kTensorShape));
    Buffer shape = Int64Array(shape_h, name + "_shape", ndim);
    Tensor& t_state = tensors_[c.arg];
    for (int k = 0; k < ndim; ++k) t_state.dims.push_back(BufferLoad(shape, {I32(k)}));
    t_state.compact.resize(ndim);
    for (int k = ndim; k-- > 0;) {
      t_state.compact[k] = k + 1 == ndim ? I64(1) : PrimExpr(Mul(t_state.compact[k + 1], t_state.dims[k + 1]));
    }
  }

  Tensor& Strides(const AbiCheck& c) {
    Tensor& t = tensors_[c.arg];
    if (!t.strides_h.defined()) {
      const std::string& name = Buf(c)->name;
      t.strides_h = Var(name + "_strides", PointerType(PrimType(DataType::Int(64))));
      b_->Let(t.strides_h, StructGet(DataType::Handle(), Handle(c), 0, StructField::kTensorStrides));
      t.strides = Int64Array(t.strides_h, name + "_strides", static_cast<int64_t>(t.dims.size()));
    }
    return t;
  }

  void EmitCompactStrides(const AbiCheck& c) {
    Tensor& t = Strides(c);
    PrimExpr cond;
    for (int k = static_cast<int>(t.dims.size()); k-- > 0;) {
      PrimExpr ok = Or(EQ(t.dims[k], I64(1)), EQ(BufferLoad(t.strides, {I32(k)}), analyzer_.Simplify(t.compact[k])));
      cond = cond.defined() ? PrimExpr(And(cond, ok)) : ok;
    }
    b_->Guarded(Not(IsNull(t.strides_h)), cond, c);
  }

  void EmitDataNotNull(const AbiCheck& c) {
    Buffer buf = Buf(c);
    b_->Let(buf->data, StructGet(DataType::Handle(), Handle(c), 0, StructField::kTensorData));
    PrimExpr empty;
    for (const PrimExpr& d : tensors_[c.arg].dims) {
      PrimExpr z = EQ(d, I64(0));
      empty = empty.defined() ? PrimExpr(Or(empty, z)) : z;
    }
    PrimExpr not_null = Not(IsNull(buf->data));
    b_->Assert(empty.defined() ? PrimExpr(Or(not_null, empty)) : not_null, c);
  }

  // A shape or stride check: defines its variable from the run-time int64 `actual`, or asserts.
  void BindOrCheck(const AbiCheck& c, const PrimExpr& actual) {
    if (c.bind.defined()) return b_->Let(c.bind, CastTo(c.bind->dtype, actual));
    b_->Assert(EQ(CastTo(DataType::Int(64), c.expected), actual), c);
  }

  const PrimFunc& f_;
  Var args_, num_args_;
  Binder* b_;
  std::unordered_map<int, Tensor> tensors_;
  arith::Analyzer analyzer_;
};

absl::StatusOr<PrimFunc> MakeInternal(const PrimFunc& f, const std::string& name) {
  if (f->buffer_map.empty()) return f;
  std::unordered_set<const VarNode*> params;
  for (const Var& p : f->params) params.insert(p.get());
  Array<Var> new_params;
  for (const Var& p : f->params) {
    Buffer buf = f->buffer_map.Get(p);
    if (!buf.defined()) {
      new_params.push_back(p);
      continue;
    }
    std::vector<PrimExpr> fields = buf->shape.ToVector();
    for (const PrimExpr& s : buf->strides) fields.push_back(s);
    if (buf->elem_offset.defined()) fields.push_back(buf->elem_offset);
    for (const PrimExpr& e : fields) {
      if (e.as<IntImmNode>() || (e.as<VarNode>() && params.count(e.as<VarNode>()))) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": buffer parameter ", buf->name,
          " of a function without global_symbol must have a constant layout (or one given by scalar params)"));
    }
    if (buf->elem_offset.defined() && !(buf->elem_offset.as<IntImmNode>() && buf->elem_offset.as<IntImmNode>()->value == 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": buffer parameter ", buf->name, " of an internal function has an elem_offset"));
    }
    new_params.push_back(buf->data);
  }
  PrimFunc out = f;
  PrimFuncNode* n = out.CopyOnWrite();
  n->params = new_params;
  n->buffer_map = {};
  return out;
}

}  // namespace

absl::StatusOr<PrimFunc> MakePackedAPI(const PrimFunc& f, const std::string& name, const PackedApiOptions& options) {
  std::string symbol = f->GetGlobalSymbol();
  if (symbol.empty()) return MakeInternal(f, name);

  AbiCheckOptions abi;
  abi.device_type = options.device_type;
  abi.device_name = options.device_name;
  absl::StatusOr<std::vector<AbiCheck>> checks = KernelAbiChecks(f, symbol, abi);
  if (!checks.ok()) return checks.status();
  Var self("self", DataType::Handle()), args("args", DataType::Handle());
  Var num_args("num_args", DataType::Int(32)), result("result", DataType::Handle());
  Binder b;
  CheckEmitter emitter(f, args, num_args, &b);
  for (const AbiCheck& c : *checks) emitter.Emit(c);

  PrimFunc out = f;
  PrimFuncNode* node = out.CopyOnWrite();
  node->params = {self, args, num_args, result};
  node->buffer_map = {};
  // The original body is marked as the compute scope, as in TVM: backends may outline it into
  // "<symbol>_compute_" so the checks and the computation are optimized and compiled separately.
  node->body = b.Build(AttrStmt(I32(0), "compute_scope", StringImm(symbol + "_compute_"), f->body));
  node->attrs.Set(String(driver::kCallingConvAttr), IntImm(DataType::Int(32), driver::kPackedCallingConv));
  return out;
}

}  // namespace kiln::tir::transform
