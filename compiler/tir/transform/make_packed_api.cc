// MakePackedAPI: turns each exported PrimFunc (one with a global_symbol) into a kernel ABI entry
// (runtime/kernel_abi.h)
//
//     int32_t f(void* self, const KilnAny* args, int32_t num_args, KilnAny* result)
//
// whose body unpacks `args` into the original parameters and checks every argument before running
// the original body, because a kernel is called across a process/library boundary with values the
// compiler never saw. The checks, in order (each an AssertStmt; the backend returns -1 with
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
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/ir/functor.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/op/builtin.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// Type indices of runtime/kernel_abi.h (KilnTypeIndex).
constexpr int kNone = 0, kInt = 1, kBool = 2, kFloat = 3, kOpaquePtr = 4, kDLTensorPtr = 7;
constexpr int kDLBoolCode = 6;  // DLPack 1.x kDLBool

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

// An expected value as messages show it: integers bare, whatever their dtype.
std::string Show(const PrimExpr& e) {
  if (const auto* imm = e.as<IntImmNode>()) return absl::StrCat(imm->value);
  return arith::ExprToString(e);
}

// Collects the unpacking statements in order; Build() nests them around the body.
class Binder {
 public:
  explicit Binder(std::string fname) : fname_(std::move(fname)) {}

  void Let(const Var& v, const PrimExpr& value) {
    steps_.push_back({v, value, Stmt()});
    bound_.insert(v.get());
  }
  void Assert(const PrimExpr& cond, const std::string& kind, const std::string& message) {
    steps_.push_back({Var(), PrimExpr(), AssertStmt(cond, kind, {String(absl::StrCat(fname_, ": ", message))})});
  }
  void Guarded(const PrimExpr& guard, const PrimExpr& cond, const std::string& kind, const std::string& message) {
    Stmt a = AssertStmt(cond, kind, {String(absl::StrCat(fname_, ": ", message))});
    steps_.push_back({Var(), PrimExpr(), IfThenElse(guard, a)});
  }
  bool IsBound(const VarNode* v) const { return bound_.count(v) > 0; }

  // `expected` (a buffer field) against the run-time int64 `actual`, labelled e.g. "A.shape[0]":
  // an unbound variable is bound, anything else checked.
  void BindOrCheck(const PrimExpr& expected, const PrimExpr& actual, const std::string& label) {
    if (const auto* v = expected.as<VarNode>(); v && !IsBound(v)) {
      Let(GetRef<Var>(v), CastTo(v->dtype, actual));
      return;
    }
    Assert(EQ(CastTo(DataType::Int(64), expected), actual), "ValueError",
           absl::StrCat("argument ", label, " has an unsatisfied constraint: ", Show(expected), " == ", label));
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
  std::string fname_;
  std::vector<Step> steps_;
  std::unordered_set<const VarNode*> bound_;
};

std::string DTypeCheckName(DataType t) { return t.is_bool() ? "bool" : t.ToString(); }

void BindBuffer(Binder* b, const Buffer& buf, const Var& handle, const PackedApiOptions& options) {
  const std::string& name = buf->name;
  int ndim = static_cast<int>(buf->shape.size());
  b->Assert(Not(IsNull(handle)), "TypeError", absl::StrCat("argument ", name, " is NULL, expected a tensor"));
  b->Assert(EQ(StructGet(DataType::Int(32), handle, 0, StructField::kTensorNDim), I32(ndim)), "ValueError",
            absl::StrCat("argument ", name, ".ndim has an unsatisfied constraint: ", ndim, " == ", name, ".ndim"));

  PrimExpr code = StructGet(DataType::Int(32), handle, 0, StructField::kTensorDTypeCode);
  PrimExpr bits = StructGet(DataType::Int(32), handle, 0, StructField::kTensorDTypeBits);
  PrimExpr lanes = StructGet(DataType::Int(32), handle, 0, StructField::kTensorDTypeLanes);
  DataType t = buf->dtype;
  PrimExpr dtype_ok;
  if (t.is_bool()) {
    dtype_ok = And(Or(And(EQ(code, I32(DataType::kUInt)), EQ(bits, I32(1))),
                      And(EQ(code, I32(kDLBoolCode)), EQ(bits, I32(8)))),
                   EQ(lanes, I32(t.lanes())));
  } else {
    dtype_ok = And(And(EQ(code, I32(t.code())), EQ(bits, I32(t.bits()))), EQ(lanes, I32(t.lanes())));
  }
  b->Assert(dtype_ok, "TypeError",
            absl::StrCat("argument ", name, ".dtype has an unsatisfied constraint: ", name, ".dtype == ",
                         DTypeCheckName(t)));

  Var shape_h(name + "_shape", PointerType(PrimType(DataType::Int(64))));
  b->Let(shape_h, StructGet(DataType::Handle(), handle, 0, StructField::kTensorShape));
  Buffer shape = Int64Array(shape_h, name + "_shape", ndim);
  std::vector<PrimExpr> dims;
  for (int k = 0; k < ndim; ++k) dims.push_back(BufferLoad(shape, {I32(k)}));
  for (int k = 0; k < ndim; ++k) b->BindOrCheck(buf->shape[k], dims[k], absl::StrCat(name, ".shape[", k, "]"));

  // Compact strides computed from the run-time shape.
  std::vector<PrimExpr> compact(ndim);
  for (int k = ndim; k-- > 0;) compact[k] = k + 1 == ndim ? I64(1) : PrimExpr(Mul(compact[k + 1], dims[k + 1]));
  arith::Analyzer analyzer;
  if (ndim > 0) {
    Var strides_h(name + "_strides", PointerType(PrimType(DataType::Int(64))));
    b->Let(strides_h, StructGet(DataType::Handle(), handle, 0, StructField::kTensorStrides));
    Buffer strides = Int64Array(strides_h, name + "_strides", ndim);
    if (buf->strides.empty()) {
      PrimExpr cond;
      for (int k = ndim; k-- > 0;) {
        PrimExpr ok = Or(EQ(dims[k], I64(1)), EQ(BufferLoad(strides, {I32(k)}), analyzer.Simplify(compact[k])));
        cond = cond.defined() ? PrimExpr(And(cond, ok)) : ok;
      }
      b->Guarded(Not(IsNull(strides_h)), cond, "ValueError",
                 absl::StrCat("argument ", name, ".strides has an unsatisfied constraint: ", name,
                              " must be compact (row-major contiguous)"));
    } else {
      for (int k = 0; k < ndim; ++k) {
        PrimExpr actual = Call(DataType::Int(64), Op("tirx.if_then_else"),
                               {IsNull(strides_h), analyzer.Simplify(compact[k]), BufferLoad(strides, {I32(k)})});
        b->BindOrCheck(buf->strides[k], actual, absl::StrCat(name, ".strides[", k, "]"));
      }
    }
  }

  int64_t elem_bytes = std::max<int64_t>(1, t.bytes());
  PrimExpr byte_offset = StructGet(DataType::Int(64), handle, 0, StructField::kTensorByteOffset);
  std::string label = name + ".byte_offset";
  const PrimExpr& off = buf->elem_offset;
  if (const auto* v = off.defined() ? off.as<VarNode>() : nullptr; v && !b->IsBound(v)) {
    b->Assert(EQ(FloorMod(byte_offset, I64(elem_bytes)), I64(0)), "ValueError",
              absl::StrCat("argument ", label, " has an unsatisfied constraint: ", label, " % ", elem_bytes, " == 0"));
    b->Let(GetRef<Var>(v), CastTo(v->dtype, FloorDiv(byte_offset, I64(elem_bytes))));
  } else {
    PrimExpr expected = off.defined() ? analyzer.Simplify(Mul(CastTo(DataType::Int(64), off), I64(elem_bytes))) : I64(0);
    b->Assert(EQ(byte_offset, expected), "ValueError",
              absl::StrCat("argument ", label, " has an unsatisfied constraint: ", Show(expected), " == ", label));
  }

  b->Let(buf->data, StructGet(DataType::Handle(), handle, 0, StructField::kTensorData));
  PrimExpr empty;
  for (const PrimExpr& d : dims) {
    PrimExpr z = EQ(d, I64(0));
    empty = empty.defined() ? PrimExpr(Or(empty, z)) : z;
  }
  PrimExpr not_null = Not(IsNull(buf->data));
  b->Assert(empty.defined() ? PrimExpr(Or(not_null, empty)) : not_null, "ValueError",
            absl::StrCat("argument ", name, ".data is NULL"));
  if (elem_bytes > 1) {
    PrimExpr addr = Cast(DataType::Int(64), buf->data);
    b->Assert(EQ(Call(DataType::Int(64), Op("tirx.bitwise_and"), {addr, I64(elem_bytes - 1)}), I64(0)), "ValueError",
              absl::StrCat("argument ", name, ".data is misaligned: expected an address that is a multiple of ",
                           elem_bytes, " bytes"));
  }
  b->Assert(EQ(StructGet(DataType::Int(32), handle, 0, StructField::kTensorDeviceType), I32(options.device_type)),
            "ValueError",
            absl::StrCat("argument ", name, ".device_type has an unsatisfied constraint: ", options.device_type, " (",
                         options.device_name, ") == ", name, ".device_type"));
}

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

  Var self("self", DataType::Handle()), args("args", DataType::Handle());
  Var num_args("num_args", DataType::Int(32)), result("result", DataType::Handle());
  Binder b(symbol);
  std::vector<std::string> names;
  for (const Var& p : f->params) {
    Buffer buf = f->buffer_map.Get(p);
    names.push_back(buf.defined() ? buf->name : p->name);
  }
  int n = static_cast<int>(f->params.size());
  b.Assert(EQ(num_args, I32(n)), "TypeError",
           absl::StrCat("expected ", n, n == 1 ? " argument" : " arguments", " (", absl::StrJoin(names, ", "), ")"));

  for (int i = 0; i < n; ++i) {
    const Var& p = f->params[i];
    Buffer buf = f->buffer_map.Get(p);
    DataType t = p.dtype();
    Var tindex(names[i] + "_type_index", DataType::Int(32));
    b.Let(tindex, StructGet(DataType::Int(32), args, i, StructField::kArgTypeIndex));
    std::string arg = absl::StrCat("argument ", names[i], " (#", i, ")");
    PrimExpr as_int = StructGet(DataType::Int(64), args, i, StructField::kArgInt64);
    if (buf.defined()) {
      b.Assert(AnyOf(tindex, {kDLTensorPtr, kOpaquePtr}), "TypeError", absl::StrCat(arg, " must be a tensor (DLTensor*)"));
      b.Let(p, StructGet(DataType::Handle(), args, i, StructField::kArgHandle));
    } else if (t.is_handle()) {
      b.Assert(AnyOf(tindex, {kOpaquePtr, kDLTensorPtr, kNone}), "TypeError", absl::StrCat(arg, " must be a pointer"));
      b.Let(p, StructGet(DataType::Handle(), args, i, StructField::kArgHandle));
    } else if (t.is_bool() && t.is_scalar()) {
      b.Assert(AnyOf(tindex, {kBool, kInt}), "TypeError", absl::StrCat(arg, " must be a bool"));
      b.Let(p, NE(as_int, I64(0)));
    } else if (t.is_integer() && t.is_scalar()) {
      b.Assert(AnyOf(tindex, {kInt, kBool}), "TypeError", absl::StrCat(arg, " must be an integer (", t.ToString(), ")"));
      b.Let(p, Cast(t, as_int));
    } else if (t.is_floating() && t.is_scalar()) {
      b.Assert(AnyOf(tindex, {kFloat, kInt, kBool}), "TypeError", absl::StrCat(arg, " must be a float (", t.ToString(), ")"));
      PrimExpr as_float = StructGet(DataType::Float(64), args, i, StructField::kArgFloat64);
      b.Let(p, Select(EQ(tindex, I32(kFloat)), Cast(t, as_float), Cast(t, as_int)));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(symbol, ": parameter ", p->name, " has dtype ", t.ToString(), ", which the kernel ABI cannot pass"));
    }
  }
  for (int i = 0; i < n; ++i) {
    Buffer buf = f->buffer_map.Get(f->params[i]);
    if (buf.defined()) BindBuffer(&b, buf, f->params[i], options);
  }

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
