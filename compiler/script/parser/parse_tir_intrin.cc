// TVMScript parser, TIR intrinsics: every `T.<name>` that no other family handles is looked up in
// the intrinsic registry (compiler/tir/op), whose entry gives the operator, its arity and its
// result dtype rule; T.call_intrin names an operator directly.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"
#include "compiler/tir/op/op.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// T.call_intrin(dtype, "op.name", args...): an operator by its IR name.
Value CallIntrin(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.size() < 2) p.Fail(span, "T.call_intrin(dtype, op_name, *args) needs a dtype and an operator name");
  DataType dtype = c.CallDType(a.args[0]);
  std::string op = p.ToStr(a.args[1], SpanOr(a.args[1], span));
  Array<PrimExpr> args;
  for (size_t i = 2; i < a.args.size(); ++i) args.push_back(c.Prim(i));
  return Value::Obj(K::kPrim, Call(dtype, Op(op), args, span));
}

// T.llvm_lookup_intrinsic_id("llvm.name").
Value CallLlvmLookupIntrinsicId(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  // TVM resolves the name to its LLVM version's numeric id; kiln's call_llvm_(pure_)intrin keep
  // the name itself, which is what this evaluates to.
  c.Need(1, 1);
  Value n = Value::Str(p.ToStr(a.args[0], SpanOr(a.args[0], span)));
  n.span = span;
  return n;
}

}  // namespace

// Any other T.<name>: an intrinsic of the registry (T.exp, T.if_then_else, T.call_extern, ...).
Value CallTirIntrinsic(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  p.NormalizeIntrinsicArgs(name, a);
  const tir::IntrinsicInfo* info = tir::IntrinsicRegistry::Global().FindByScriptName(name);
  if (!info) {
    // Spellings removed before TVM v0.26 get a pointer to their replacement.
    static const std::pair<const char*, const char*> kRemoved[] = {
        {"allocate", "T.alloc_buffer"}, {"allocate_const", "T.alloc_buffer"}, {"realize", "T.sblock"},
        {"store", "buffer element assignment A[i] = v"}, {"load", "buffer element access A[i]"},
    };
    for (const auto& [old_name, v026] : kRemoved) {
      if (name == old_name) p.Fail(a.func_span, absl::StrCat("T.", name, " is not a TVMScript function in TVM v0.26; use ", v026));
    }
    p.Fail(a.func_span, absl::StrCat("T.", name, " is not a TVMScript function"));
  }
  using Rule = tir::IntrinsicInfo::DTypeRule;
  std::vector<Value> args = a.args;
  DataType explicit_dtype;
  if (info->dtype_rule == Rule::kExplicit) {
    bool last = info->script_name == "tvm_struct_get";
    if (const Value* d = Kwarg(a, "dtype")) {  // T.reinterpret(x, dtype="int32")
      explicit_dtype = c.CallDType(*d);
    } else {
      if (args.empty()) p.Fail(span, absl::StrCat("T.", name, " needs a dtype argument"));
      const Value& d0 = last ? args.back() : args.front();
      explicit_dtype = c.CallDType(d0);
      if (last) args.pop_back(); else args.erase(args.begin());
    }
  }
  int n = static_cast<int>(args.size());
  if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
    std::string expect = info->max_args < 0 ? absl::StrCat("at least ", info->min_args)
                       : info->min_args == info->max_args ? absl::StrCat(info->min_args)
                       : absl::StrCat(info->min_args, " to ", info->max_args);
    p.Fail(span, absl::StrCat("T.", name, " expects ", expect, " argument", expect == "1" ? "" : "s", ", got ", n));
  }
  Array<PrimExpr> call_args;
  std::vector<PrimExpr> conv(args.size());
  auto op_of = [&](size_t i) { return ToOperand(p, args[i], span); };
  size_t pair = info->dtype_rule == Rule::kSecondArg ? 1 : 0;  // if_then_else unifies its branches
  bool unify = info->match_binary_args || info->dtype_rule == Rule::kSecondArg;
  for (size_t i = 0; i < args.size(); ++i) {
    if (unify && (i == pair || i == pair + 1) && args.size() > pair + 1) {
      if (i == pair) {
        absl::Status st = tir::MatchTypes(op_of(pair), op_of(pair + 1), &conv[pair], &conv[pair + 1]);
        if (!st.ok()) p.Fail(span, absl::StrCat(st.message(), " in T.", name));
      }
      continue;
    }
    conv[i] = op_of(i).Materialize();
  }
  for (PrimExpr& e : conv) call_args.push_back(e);
  DataType dtype;
  switch (info->dtype_rule) {
    case Rule::kSameAsFirstArg: dtype = call_args.empty() ? DataType::Int(32) : call_args[0].dtype(); break;
    case Rule::kBool: dtype = DataType::Bool(); break;
    case Rule::kExplicit: dtype = explicit_dtype; break;
    case Rule::kSecondArg:
    case Rule::kValueArg: dtype = call_args[1].dtype(); break;
    case Rule::kUInt64: dtype = DataType::UInt(64); break;
    case Rule::kFloat32: dtype = DataType::Float(32); break;
    case Rule::kInt32: dtype = DataType::Int(32); break;
    case Rule::kHandle: dtype = DataType::Handle(); break;
    case Rule::kVoid: dtype = DataType::Void(); break;
    case Rule::kUInt32: dtype = DataType::UInt(32); break;
    case Rule::kBoolLanesOfFirstArg: dtype = DataType::Bool(call_args[0].dtype().lanes()); break;
    case Rule::kNamedByArg1:
    case Rule::kIntOfArg0Bits: {
      std::optional<DataType> t = tir::DTypeFromArgs(*info, call_args);
      if (!t) {
        p.Fail(span, absl::StrCat("T.", name, info->dtype_rule == Rule::kNamedByArg1
                                                  ? " expects a dtype string as its second argument"
                                                  : " expects 32 or 64 bits as its first argument"));
      }
      dtype = *t;
      break;
    }
  }
  if (info->float_only && !call_args.empty() && !call_args[0].dtype().is_floating()) {
    p.Fail(span, absl::StrCat("T.", name, " expects a floating-point argument, got ", call_args[0].dtype().ToString()));
  }
  return Value::Obj(K::kPrim, Call(dtype, Op(info->name), call_args, span));
}

void Parser::NormalizeIntrinsicArgs(const std::string& name, CallArgs& a) {
  const Span& span = a.span;
  if (name == "call_packed" || name == "call_cpacked" || name == "call_packed_lowered" || name == "call_cpacked_lowered" ||
      name == "tvm_call_packed" || name == "tvm_call_cpacked" || name == "tvm_call_packed_lowered" ||
      name == "tvm_call_cpacked_lowered") {
    // A buffer argument is passed as the DLTensor TVM packs for it:
    // tvm_stack_make_array(data, make_shape(shape), make_shape(strides) or 0, ndim, 0 as dtype, elem_offset).
    for (Value& v : a.args) {
      if (v.kind != K::kBuffer) continue;
      Buffer b = Downcast<Buffer>(v.obj);
      Op make_shape("tirx.tvm_stack_make_shape");
      PrimExpr strides = b->strides.empty() ? PrimExpr(IntImm(DataType::Int(32), 0))
                                             : PrimExpr(Call(DataType::Handle(), make_shape, b->strides, span));
      absl::StatusOr<PrimExpr> zero = tir::MakeConst(b->dtype, tir::Operand::IntLiteral(0), span);
      if (!zero.ok()) Fail(SpanOr(v, span), std::string(zero.status().message()));
      Array<PrimExpr> pack = {b->data, Call(DataType::Handle(), make_shape, b->shape, span), strides,
                              IntImm(DataType::Int(32), static_cast<int64_t>(b->shape.size())), *zero,
                              b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0))};
      v = Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.tvm_stack_make_array"), pack, span));
    }
    return;
  }
  if (name == "ptx_legacy.ldmatrix") {  // without a dtype the element type defaults to int8
    if (!Kwarg(a, "dtype") && a.args.size() == 7) a.args.insert(a.args.begin(), Value::Str("int8"));
    return;
  }
  if (name == "ptx_legacy.mma") {
    // A dtype (leading, or dtype=) is accepted and dropped: the call returns nothing. The
    // optional operator is the 14th argument or operator=.
    std::vector<Value> args = a.args;
    if (const Value* d = Kwarg(a, "dtype")) args.insert(args.begin(), *d);
    if (args.size() == 14 || args.size() == 15) args.erase(args.begin());
    if (const Value* op = Kwarg(a, "operator")) {
      if (args.size() == 14) Fail(span, "T.ptx_legacy.mma: the operator is given twice");
      if (op->kind != K::kNone) args.push_back(*op);
    }
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const auto& kv : a.kwargs) {
      if (kv.first != "dtype" && kv.first != "operator") kwargs.push_back(kv);
    }
    a.args = std::move(args);
    a.kwargs = std::move(kwargs);
    return;
  }
  if (name == "ptr_byte_offset" && a.args.size() == 3 && a.args[2].kind != K::kPrim) {
    // ptr_byte_offset(data, offset, "float16"): the element type travels as T.type_annotation.
    DataType elem = ToDType(a.args[2], SpanOr(a.args[2], span));
    a.args[2] = Value::Obj(K::kPrim, Call(elem, Op("tirx.type_annotation"), {}, span));
  }
}


void AddTirIntrinsicCalls(TirCallTable* t) {
  t->by_name.emplace("call_intrin", &CallIntrin);
  t->by_name.emplace("llvm_lookup_intrinsic_id", &CallLlvmLookupIntrinsicId);
}

}  // namespace kiln::script::parser
