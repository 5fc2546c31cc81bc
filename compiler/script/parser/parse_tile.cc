// TVMScript parser, TVM v0.26's TIRx tile/device DSL inside `@T.prim_func`:
//  * `T.device_entry()`: everything after it is device code; TVM wraps the rest of the function in
//    AttrStmt("tirx.device_entry", True), which prints as `T.attr({"tirx.device_entry": ...})`,
//    so the flat one-dict form of T.attr is read here too (one AttrStmt per key, the first
//    outermost, each over the rest of the block);
//  * T.local_scalar / T.shared_scalar / T.alloc_scalar: a scalar buffer, as `x: T.int32`;
//  * T.hint("message", key=value): a directive over the rest of the block;
//  * T.ptx.<instruction>(...): TVM's PTX dialect, one void call per instruction (CallPtx);
//  * T.nki.<op>(...): Trainium intrinsics, with TVM's defaults filled in;
//  * `x: T.float32[8]` local arrays and the dtype aliases T.f32, T.i32, ...;
//  * A.ptr_to([i]), T.address_of(A), T.ptr_byte_offset(p, n, "dtype"): addresses;
//  * scope ids, `bx, by = T.cta_id([4, 2])`, `tx = T.thread_id([128])`, `T.lane_id()`: one
//    ScopeIdDefStmt declaring a var per axis for the rest of the block;
//  * tile layouts, T.TileLayout(T.S[(8, 4) : (4 @ Axis.laneid, 1)] + T.R[...] + offset) and
//    T.ComposeLayout(...), and a buffer's layout= / allocated_addr= (SetBufferLayout resolves
//    None, "default" and Trainium "PF" annotations as TVM's builder does).
// Kept apart from parse_tir.cc because the family is self-contained and TVM keeps it in its own
// builder layer (tirx/script/builder).
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/match.h"
#include "compiler/ir/structural.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/script/parser/ptx_table.h"
#include "compiler/tir/op/arith.h"
#include "compiler/tir/op/op.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

struct ScopeIdFunction {
  const char* name;
  ScopeBinding binding;
  bool takes_preferred;  // T.cta_id / T.cta_id_in_cluster(extents, preferred, dtype)
};
constexpr ScopeIdFunction kScopeIdFunctions[] = {
    {"cluster_id", ScopeBinding::kKernelCluster, false},
    {"cta_id", ScopeBinding::kKernelCta, true},
    {"cta_id_in_cluster", ScopeBinding::kClusterCta, true},
    {"cta_id_in_pair", ScopeBinding::kClusterCtaPair, false},
    {"warpgroup_id", ScopeBinding::kCtaWarpgroup, false},
    {"warp_id", ScopeBinding::kCtaWarp, false},
    {"warp_id_in_wg", ScopeBinding::kWarpgroupWarp, false},
    {"lane_id", ScopeBinding::kWarpThread, false},
    {"thread_id", ScopeBinding::kCtaThread, false},
    {"thread_id_in_wg", ScopeBinding::kWarpgroupThread, false},
};

// T.ptx attribute names escape PTX tokens: `::` is written `__`, a Python keyword gets a
// trailing `_` (`global_`, `async_`).
std::string UnescapePtxToken(std::string t) {
  for (size_t i; (i = t.find("__")) != std::string::npos;) t.replace(i, 2, "::");
  if (!t.empty() && t.back() == '_') t.pop_back();
  return t;
}

// A `T.ptx.pred(x)` operand: the marker tag on the value (see CallPtx).
constexpr const char* kPtxPredTag = "ptx.pred";

// The T.nki (Trainium) intrinsics: their parameter names and how many are required. The optional
// trailing ones default as in TVM (accum=True, bias=0.0, scale=1.0, reverse*=False) and are
// always present in the call, so T.nki.matmul(r, a, b) and T.nki.matmul(r, a, b, True) agree.
struct NkiSignature {
  const char* name;
  std::vector<const char*> params;
  size_t required;
};
const std::vector<NkiSignature>& NkiSignatures() {
  static const std::vector<NkiSignature>* const kSignatures = new std::vector<NkiSignature>{
      {"matmul", {"res", "lhs", "rhs", "accum"}, 3},
      {"activation", {"result", "data", "opcode", "bias", "scale"}, 3},
      {"tensorscalar", {"result", "operand0", "operand1", "opcode", "reverse"}, 4},
      {"activation_reduce", {"reduce_res", "act_res", "data", "opcode", "reduce_opcode", "bias", "scale"}, 5},
      {"tensorscalar_reduce",
       {"reduce_res", "tensorscalar_res", "operand0", "operand1", "opcode", "reduce_opcode", "reverse"}, 6},
      {"scalar_tensor_tensor",
       {"result", "data", "operand0", "operand1", "opcode0", "opcode1", "reverse0", "reverse1"}, 6},
      {"scalar_tensor_scalar",
       {"result", "data", "operand0", "operand1", "opcode0", "opcode1", "reverse0", "reverse1"}, 6},
  };
  return *kSignatures;
}
Value NkiDefault(const std::string& param) {
  if (param == "accum") return Value::Bool(true);
  if (param == "bias") return Value::Float(0.0);
  if (param == "scale") return Value::Float(1.0);
  return Value::Bool(false);  // reverse, reverse0, reverse1
}

// Binds a call's positional arguments, then its keywords, to `params` in order: slot i holds the
// value given for params[i], or nullptr. `*unknown` is set to the first keyword no parameter has.
template <typename Name>
std::vector<const Value*> BindToParams(const CallArgs& a, const std::vector<Name>& params, std::string* unknown) {
  std::vector<const Value*> given(params.size(), nullptr);
  for (size_t i = 0; i < a.args.size() && i < given.size(); ++i) given[i] = &a.args[i];
  for (const auto& [k, v] : a.kwargs) {
    size_t i = 0;
    while (i < params.size() && k != params[i]) ++i;
    if (i == params.size()) {
      *unknown = k;
      break;
    }
    given[i] = &v;
  }
  return given;
}

bool IsPtxAddr(const PrimExpr& e) {
  const auto* call = e.as<CallNode>();
  const auto* op = call ? call->op.as<OpNode>() : nullptr;
  return op && op->name == "tirx.ptx.addr";
}

// What the PTX table checks of one operand (see ptx_table.h): `v` as written, `e` as converted.
PtxArg DescribePtxOperand(const Value& v, const PrimExpr& e) {
  PtxArg arg;
  if (v.kind == K::kInt) arg.literal = PtxArg::Literal::kInt;
  if (v.kind == K::kFloat) arg.literal = PtxArg::Literal::kFloat;
  if (v.kind == K::kBool) arg.literal = PtxArg::Literal::kBool;
  arg.pred_tag = v.kind == K::kPrim && v.s == kPtxPredTag;
  PrimExpr value = e;
  if (IsPtxAddr(e)) {
    arg.form = PtxArg::Form::kAddrOffset;
    value = e.as<CallNode>()->args[0];
  }
  arg.lvalue = value.as<BufferLoadNode>() != nullptr;
  if (const auto* imm = value.as<IntImmNode>()) {
    arg.const_int = true;
    arg.int_value = imm->value;
  }
  arg.dtype = value.dtype().ToString();
  return arg;
}

}  // namespace

// Resolves a T.ptx call against the PTX instruction table (ptx_table.h), as TVM does while
// tracing: `operands` as written (the printed form's guard still last, its sunk lanes and .pred
// tags only in `flags`), `args` their conversions in the same order with the sunk lanes left out.
void Parser::CheckPtxOperands(const std::string& family, const std::vector<std::string>& tokens,
                              const std::vector<Value>& operands, const Array<PrimExpr>& args,
                              const std::vector<std::string>& flags, const Span& span) {
  if (!PtxFamilyHasTable(family)) return;
  std::vector<PtxArg> described;
  std::vector<Span> spans;
  size_t next = 0;
  for (const Value& v : operands) {
    if (v.kind == K::kName && v.s == "T.ptx.SINK") {
      PtxArg sink;
      sink.form = PtxArg::Form::kSink;
      described.push_back(sink);
    } else {
      described.push_back(DescribePtxOperand(v, args[next++]));
    }
    spans.push_back(SpanOr(v, span));
  }
  bool guarded = std::find(flags.begin(), flags.end(), "pred") != flags.end();
  if (guarded && next == args.size() && !described.empty()) {  // the printed form: the guard is the last operand
    described.pop_back();
    spans.pop_back();
  }
  std::vector<int> sunk;
  for (const std::string& f : flags) {
    if (f.size() > 1 && f[0] == 's' && std::all_of(f.begin() + 1, f.end(), ::isdigit)) sunk.push_back(std::stoi(f.substr(1)));
  }
  std::sort(sunk.begin(), sunk.end());
  bool printed_sinks = std::none_of(described.begin(), described.end(),
                                    [](const PtxArg& x) { return x.form == PtxArg::Form::kSink; });
  if (printed_sinks) {
    for (int i : sunk) {
      if (i > static_cast<int>(described.size())) return;  // a marker this call cannot carry: left as written
      PtxArg sink;
      sink.form = PtxArg::Form::kSink;
      described.insert(described.begin() + i, sink);
      spans.insert(spans.begin() + i, span);
    }
  }
  for (const std::string& f : flags) {
    if (f.size() > 1 && f[0] == 'p' && std::all_of(f.begin() + 1, f.end(), ::isdigit)) {
      size_t i = std::stoul(f.substr(1));
      if (i < described.size()) described[i].pred_tag = true;
    }
  }
  if (auto err = CheckPtxCall(family, tokens, described)) {
    Fail(err->operand >= 0 && err->operand < static_cast<int>(spans.size()) ? spans[err->operand] : span, err->message);
  }
}

std::string CanonicalDTypeName(const std::string& name) {
  // TVM's shorthand aliases (T.f32, T.i32, ...).
  static const std::pair<const char*, const char*> kAliases[] = {
      {"f16", "float16"}, {"f32", "float32"}, {"f64", "float64"}, {"bf16", "bfloat16"},
      {"i8", "int8"}, {"i16", "int16"}, {"i32", "int32"}, {"i64", "int64"},
      {"u8", "uint8"}, {"u16", "uint16"}, {"u32", "uint32"}, {"u64", "uint64"},
      {"boolean", "bool"},  // T.boolean(), a bool var or cast
  };
  for (const auto& [alias, full] : kAliases) {
    if (name == alias) return full;
  }
  return name;
}

void Parser::TIRLocalArray(const std::string& name, const Value& ann, const Span& span) {
  // `x: T.float32[8]` (or `T.f32[2, 4]`) allocates a local array, as T.alloc_local((8,), "float32").
  CallArgs a;
  a.span = span;
  a.func_span = span;
  a.args.push_back(Value::Seq(K::kTuple, ann.items));
  a.args.push_back(Value::Str(ToDType(Value::Name(ann.s), span).ToString()));
  name_hint_ = name;
  Value buf;
  try {
    buf = CallT("alloc_local", a);
  } catch (...) {
    name_hint_.clear();
    throw;
  }
  name_hint_.clear();
  Define(name, buf);
}

// `T.ptx.<family>.<tok>...(operands..., pred=p, preserve_dst=False)`: one void call of
// "tirx.ptx.<family>" whose arguments are, as in TVM's call layout, the operands, the guard
// predicate if any, the modifier tokens as strings, and a marker string of comma-joined flags
// ("pred": a guard follows the operands, "keep": preserve_dst, "p<i>": operand i is a .pred
// register, "s<i>": operand i was the discarded T.ptx.SINK). The printed form,
// `T.ptx.mad(d, a, b, c, "lo", "sat", "s32", "")`, passes the tokens and marker as trailing
// strings and reads back to the same call. TVM resolves the family and tokens against its PTX
// instruction table (operand layouts, dtypes, the entry of a multi-shape family, "" for omitted
// modifier slots); kiln checks the family only (the families are registered in tir/op/op.cc) and keeps the
// tokens as written.
Value Parser::CallPtx(const std::string& path, CallArgs& a) {
  const Span& span = a.span;
  std::vector<std::string> parts = absl::StrSplit(path, '.');
  std::string family = UnescapePtxToken(parts[0]);
  if (family == "addr") {  // T.ptx.addr(base, byte_offset): an address operand with an offset
    if (parts.size() != 1 || a.args.size() != 2 || !a.kwargs.empty()) Fail(span, "T.ptx.addr(base, byte_offset) takes 2 arguments");
    PrimExpr base = ToPrim(a.args[0], span);
    if (IsPtxAddr(base)) Fail(span, "T.ptx.addr(...) cannot be nested");
    const Value& off = a.args[1];
    if (off.kind == K::kBool || off.kind == K::kFloat) Fail(SpanOr(off, span), "T.ptx.addr byte_offset must be a signed int32 integer");
    if (off.kind == K::kInt && (off.i < INT32_MIN || off.i > INT32_MAX)) {
      Fail(SpanOr(off, span), absl::StrCat("T.ptx.addr byte_offset ", off.i, " is outside signed int32 range"));
    }
    PrimExpr offset = ToPrim(off, span);
    if (!offset.dtype().is_integer() || !offset.dtype().is_scalar()) {
      Fail(SpanOr(off, span), absl::StrCat("T.ptx.addr byte_offset must be a scalar integer expression, got ", offset.dtype().ToString()));
    }
    return Value::Obj(K::kPrim, Call(base.dtype(), Op("tirx.ptx.addr"), {base, offset}, span));
  }
  if (family == "pred") {
    if (parts.size() != 1 || a.args.size() != 1 || !a.kwargs.empty()) Fail(span, "T.ptx.pred(value) takes 1 argument");
    Value v = Value::Obj(K::kPrim, ToPrim(a.args[0], span));
    v.s = kPtxPredTag;
    return v;
  }
  std::string op_name = absl::StrCat("tirx.ptx.", family);
  if (!tir::IntrinsicRegistry::Global().FindByName(op_name)) {
    Fail(a.func_span, absl::StrCat("'", parts[0], "' is not a ptx instruction family"));
  }
  std::vector<std::string> tokens;
  for (size_t i = 1; i < parts.size(); ++i) tokens.push_back(UnescapePtxToken(parts[i]));
  std::vector<Value> operands = a.args;
  std::vector<std::string> flags;
  // The printed form: trailing strings are the modifier tokens, the last of them the marker.
  size_t split = operands.size();
  while (split > 0 && operands[split - 1].kind == K::kStr) --split;
  bool printed = split < operands.size();
  if (printed) {
    if (!tokens.empty()) Fail(span, "T.ptx: modifier tokens are given either as attributes or as trailing strings");
    for (size_t i = split; i + 1 < operands.size(); ++i) tokens.push_back(operands[i].s);
    std::string marker = operands.back().s;
    if (!marker.empty()) flags = absl::StrSplit(marker, ',');
    operands.resize(split);
  }
  const Value* pred = nullptr;
  bool keep = false;
  for (const auto& [k, v] : a.kwargs) {
    if (k == "pred") {
      if (v.kind != K::kNone) pred = &v;
    } else if (k == "preserve_dst") {
      keep = ToBool(v, span);
    } else {
      Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for a T.ptx instruction"));
    }
  }
  if (printed && (pred || keep)) Fail(span, "T.ptx: pred= and preserve_dst= are spelled in the marker string of the printed form");
  if (keep && !pred) Fail(span, "T.ptx: preserve_dst=True requires pred=...");
  Array<PrimExpr> args;
  std::vector<std::string> pred_flags, sink_flags;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Value& v = operands[i];
    if (v.kind == K::kName && v.s == "T.ptx.SINK") {
      sink_flags.push_back(absl::StrCat("s", i));
      continue;
    }
    if (v.kind == K::kPrim && v.s == kPtxPredTag) pred_flags.push_back(absl::StrCat("p", i));
    args.push_back(ToPrim(v, v.span.defined() ? v.span : span));
  }
  if (!printed) {
    if (pred) {
      args.push_back(ToPrim(*pred, span));
      flags.push_back("pred");
    }
    if (keep) flags.push_back("keep");
    // TVM's order: pred, keep, the .pred operands, then the sunk lanes.
    flags.insert(flags.end(), pred_flags.begin(), pred_flags.end());
    flags.insert(flags.end(), sink_flags.begin(), sink_flags.end());
  } else if (!pred_flags.empty() || !sink_flags.empty()) {
    Fail(span, "T.ptx: the printed form carries T.ptx.pred / T.ptx.SINK in its marker string");
  }
  CheckPtxOperands(family, tokens, operands, args, flags, span);
  for (const std::string& t : tokens) args.push_back(StringImm(t));
  args.push_back(StringImm(absl::StrJoin(flags, ",")));
  return Value::Obj(K::kPrim, Call(DataType::Void(), Op(op_name), args, span));
}

Value Parser::BufferPtrTo(const Buffer& b, CallArgs& a) {
  const Span& span = a.span;
  if (a.args.size() != 1 || !a.kwargs.empty() || !a.args[0].is_seq()) Fail(span, "A.ptr_to takes a list of indices");
  std::vector<Value> idx = a.args[0].items;
  PrimExpr load;
  if (b->shape.empty()) {  // a scalar buffer: TVM's one-element buffer, indexed [0]
    if (idx.size() != 1 || ToInt(idx[0], span) != 0) Fail(span, "a scalar buffer's only element is [0]");
    load = BufferLoad(b, {}, span);
  } else {
    load = ToPrim(LoadFromBuffer(b, idx, span), span);
  }
  return Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.address_of"), {load}, span));
}

// ------------------------------------------------------------------ tile layouts

namespace {

// The axis terms of an offset-like value: `v @ Axis.x` sums, or a plain value on axis "m".
bool AxisTermsOf(const Value& v, std::vector<Value>* keys, std::vector<Value>* items) {
  if (v.kind == K::kAxisTerms) {
    *keys = v.keys;
    *items = v.items;
    return true;
  }
  if (v.is_number() || v.kind == K::kPrim) {
    *keys = {Value::Str("m")};
    *items = {v};
    return true;
  }
  return false;
}

// TVM's Layout._get_default_strides(shape, 1): row-major strides in the extents' dtype.
Array<PrimExpr> DefaultStrides(const Array<PrimExpr>& extents) {
  Array<PrimExpr> strides;
  TileLayout layout = TileLayout::Default(extents);
  for (const Iter& it : layout->shard) strides.push_back(it->stride);
  return strides;
}

// TVM's TileLayout.trainium(annotation, shape): each dimension of a trn.sbuf buffer is on the
// partition axis "P" or the free axis "F", row-major within each axis. A single partition
// dimension over 128 is split: its multiple of 128 becomes the outermost free dimension.
absl::StatusOr<TileLayout> TrainiumLayout(const std::string& annotation, const Array<PrimExpr>& shape_in, const Span& span) {
  if (annotation.find_first_not_of("PF") != std::string::npos || annotation.size() != shape_in.size()) {
    return absl::InvalidArgumentError(absl::StrCat("layout=\"", annotation, "\" must be one 'P' or 'F' per dimension (",
                                                   shape_in.size(), " dimensions)"));
  }
  std::vector<PrimExpr> shape(shape_in.begin(), shape_in.end());
  std::string ann = annotation;
  size_t num_p = std::count(ann.begin(), ann.end(), 'P');
  size_t p_idx = ann.find('P');
  bool split = false;
  auto constant = [&](const PrimExpr& e) -> absl::StatusOr<int64_t> {
    if (const auto* imm = e.as<IntImmNode>()) return imm->value;
    return absl::InvalidArgumentError("a Trainium layout annotation needs constant partition dimensions");
  };
  if (num_p == 1) {
    absl::StatusOr<int64_t> p_dim = constant(shape[p_idx]);
    if (!p_dim.ok()) return p_dim.status();
    if (*p_dim > 128 && *p_dim % 128 != 0) {
      return absl::InvalidArgumentError(absl::StrCat("partition size ", *p_dim, " must be at most 128 or a multiple of 128"));
    }
    if (*p_dim > 128) {
      split = true;
      DataType dt = shape[p_idx].dtype();
      shape[p_idx] = IntImm(dt, 128);
      shape.insert(shape.begin(), IntImm(dt, *p_dim / 128));
      ann = "F" + ann;
    }
  } else if (num_p > 1) {
    int64_t prod = 1;
    for (size_t i = 0; i < ann.size(); ++i) {
      if (ann[i] != 'P') continue;
      absl::StatusOr<int64_t> d = constant(shape[i]);
      if (!d.ok()) return d.status();
      prod *= *d;
    }
    if (prod > 128) return absl::InvalidArgumentError(absl::StrCat("partition size ", prod, " must be at most 128"));
  }
  Array<PrimExpr> f_shape, p_shape;
  for (size_t i = 0; i < ann.size(); ++i) (ann[i] == 'F' ? f_shape : p_shape).push_back(shape[i]);
  Array<PrimExpr> f_strides = DefaultStrides(f_shape), p_strides = DefaultStrides(p_shape);
  std::vector<Iter> result;
  size_t fi = 0, pi = 0;
  for (char c : ann) {
    if (c == 'F') {
      result.push_back(Iter(f_shape[fi], f_strides[fi], "F", span));
      ++fi;
    } else {
      result.push_back(Iter(p_shape[pi], p_strides[pi], "P", span));
      ++pi;
    }
  }
  if (split) {  // the higher part of P goes back next to the partition dimension
    Iter higher = result.front();
    result.erase(result.begin());
    result.insert(result.begin() + p_idx, higher);
  }
  return TileLayout(Array<Iter>(result.begin(), result.end()), {}, {}, span);
}

}  // namespace

Value Parser::LayoutSpec(const std::string& kind, const std::vector<Value>& idx, bool tuple_index, const Span& span) {
  // S[e0 : s0], S[(e0, e1) : (s0, s1)] or extents only: S[e0, e1], S[(e0, e1)], S[e0].
  auto as_seq = [&](const Value& v) { return v.is_seq() ? v.items : std::vector<Value>{v}; };
  std::vector<Value> extents_v, strides_v;
  if (!tuple_index && idx.size() == 1 && idx[0].kind == K::kSlice) {
    const Value& sl = idx[0];
    if (sl.items[0].kind == K::kNone || sl.items[1].kind == K::kNone || sl.items[2].kind != K::kNone) {
      Fail(span, absl::StrCat("T.", kind, "[extents : strides] needs both extents and strides"));
    }
    extents_v = as_seq(sl.items[0]);
    strides_v = as_seq(sl.items[1]);
    if (extents_v.size() != strides_v.size()) {
      Fail(span, absl::StrCat("T.", kind, "[...]: ", extents_v.size(), " extents but ", strides_v.size(), " strides"));
    }
  } else {
    extents_v = tuple_index ? idx : as_seq(idx[0]);
  }
  Array<PrimExpr> extents;
  for (const Value& e : extents_v) extents.push_back(ToPrim(e, SpanOr(e, span)));
  Array<PrimExpr> default_strides = strides_v.empty() ? DefaultStrides(extents) : Array<PrimExpr>();
  Array<Iter> iters;
  for (size_t i = 0; i < extents.size(); ++i) {
    if (strides_v.empty()) {
      iters.push_back(Iter(extents[i], default_strides[i], "m", span));
      continue;
    }
    const Value& s = strides_v[i];
    if (s.kind == K::kAxisTerms) {
      if (s.keys.size() != 1) Fail(SpanOr(s, span), "a stride is bound to one axis (stride @ Axis.name)");
      iters.push_back(Iter(extents[i], ToPrim(s.items[0], SpanOr(s, span)), s.keys[0].s, span));
    } else {
      iters.push_back(Iter(extents[i], ToPrim(s, SpanOr(s, span)), "m", span));
    }
  }
  TileLayout spec(kind == "S" ? iters : Array<Iter>(), kind == "R" ? iters : Array<Iter>(), {}, span);
  return Value::Obj(K::kLayoutSpec, spec);
}

bool Parser::LayoutBinOp(const std::string& op, const Value& a, const Value& b, const Span& span, Value* out) {
  if (op == "@") {
    if (b.kind != K::kName || !absl::StartsWith(b.s, "Axis.")) return false;
    if (!a.is_number() && a.kind != K::kPrim) Fail(span, "`value @ Axis.name` binds a number or expression to an axis");
    out->kind = K::kAxisTerms;
    out->keys = {Value::Str(b.s.substr(5))};
    out->items = {a};
    out->span = span;
    return true;
  }
  if (op != "+") return false;
  bool a_spec = a.kind == K::kLayoutSpec, b_spec = b.kind == K::kLayoutSpec;
  if (!a_spec && !b_spec && a.kind != K::kAxisTerms && b.kind != K::kAxisTerms) return false;
  // Offsets accumulate per axis (values on the same axis add up), as TVM's _OffsetExpr does.
  auto merge = [&](std::vector<Value>* keys, std::vector<Value>* items, const Value& v) {
    std::vector<Value> k2, i2;
    if (!AxisTermsOf(v, &k2, &i2)) Fail(SpanOr(v, span), absl::StrCat("a ", KindName(v.kind), " cannot be a layout offset"));
    for (size_t j = 0; j < k2.size(); ++j) {
      size_t at = 0;
      while (at < keys->size() && (*keys)[at].s != k2[j].s) ++at;
      if (at == keys->size()) {
        keys->push_back(k2[j]);
        items->push_back(i2[j]);
        continue;
      }
      const Value& x = (*items)[at];
      if (x.kind == K::kInt && i2[j].kind == K::kInt) {
        (*items)[at] = Value::Int(x.i + i2[j].i);
        continue;
      }
      absl::StatusOr<PrimExpr> r = tir::BinaryOp(tir::BinaryOpKind::kAdd, tir::Operand(ToPrim(x, span)),
                                                 tir::Operand(ToPrim(i2[j], span)), span);
      if (!r.ok()) Fail(span, std::string(r.status().message()));
      (*items)[at] = Value::Obj(K::kPrim, *r);
    }
  };
  auto offset_terms = [&](const TileLayoutNode* l, std::vector<Value>* keys, std::vector<Value>* items) {
    for (size_t j = 0; j < l->offset.size(); ++j) {
      keys->push_back(Value::Str(l->offset.key_at(j).str()));
      items->push_back(Value::Obj(K::kPrim, l->offset.value_at(j)));
    }
  };
  std::vector<Value> keys, items;
  if (!a_spec && !b_spec) {  // offset + offset
    merge(&keys, &items, a);
    merge(&keys, &items, b);
    out->kind = K::kAxisTerms;
    out->keys = std::move(keys);
    out->items = std::move(items);
    out->span = span;
    return true;
  }
  const auto* la = a_spec ? a.obj.as<TileLayoutNode>() : nullptr;
  const auto* lb = b_spec ? b.obj.as<TileLayoutNode>() : nullptr;
  Array<Iter> shard, replica;
  if (la) offset_terms(la, &keys, &items);
  else merge(&keys, &items, a);
  if (lb) offset_terms(lb, &keys, &items);
  else merge(&keys, &items, b);
  // spec + spec: the first shard given, the last replica given.
  shard = la && !la->shard.empty() ? la->shard : lb ? lb->shard : Array<Iter>();
  replica = lb && !lb->replica.empty() ? lb->replica : la ? la->replica : Array<Iter>();
  Map<String, PrimExpr> offset;
  for (size_t j = 0; j < keys.size(); ++j) offset.Set(String(keys[j].s), ToPrim(items[j], span));
  *out = Value::Obj(K::kLayoutSpec, TileLayout(shard, replica, offset, span));
  out->span = span;
  return true;
}

void Parser::SetBufferLayout(const Value& v, BufferNode* n, const Span& span) {
  std::string scope = n->scope();
  bool trn = scope == "trn.sbuf" || scope == "trn.psum";
  // TVM's default: no layout in an s_tir function or a Trainium buffer, else DefaultLayout(shape).
  bool default_is_none = trn || (tir_.func() && tir_.func()->s_tir);
  if (v.kind == K::kNone) {
    n->no_layout = !default_is_none;
    return;
  }
  if (v.kind == K::kStr) {
    if (v.s == "default") return;
    if (scope != "trn.sbuf") {
      Fail(span, absl::StrCat("layout=\"", v.s, "\": a Trainium annotation is for trn.sbuf buffers (this one is ", scope, ")"));
    }
    absl::StatusOr<TileLayout> l = TrainiumLayout(v.s, n->shape, span);
    if (!l.ok()) Fail(span, std::string(l.status().message()));
    n->layout = *l;
    return;
  }
  if (v.kind != K::kLayout) Fail(span, absl::StrCat("layout= takes None, \"default\" or a layout, got a ", KindName(v.kind)));
  // An explicit layout equal to the default is the default (TVM's printer omits it).
  if (!default_is_none && StructuralEqual(v.obj, TileLayout::Default(n->shape))) return;
  n->layout = v.obj;
}

Value Parser::BufferView(const Buffer& b, CallArgs& a) {
  const Span& span = a.span;
  if (a.args.size() == 1 && a.kwargs.empty() && a.args[0].kind == K::kStr) {
    return BufferViewDType(b, ToDType(a.args[0], SpanOr(a.args[0], span)), a);
  }
  const Value* layout = nullptr;
  for (const auto& [k, v] : a.kwargs) {
    if (k != "layout") Fail(SpanOr(v, span), absl::StrCat("A.view: unexpected keyword argument '", k, "'"));
    layout = &v;
  }
  if (a.args.empty()) Fail(span, "A.view(*shape, layout=...) needs the new shape");
  std::vector<Value> shape = a.args;
  if (!layout || layout->kind == K::kNone) {
    // One -1 extent is inferred from the buffer's size, as TVM does (constant shapes only here).
    int64_t known = 1, total = 1;
    int unknown = -1;
    bool constant = true;
    for (size_t i = 0; i < shape.size(); ++i) {
      // A constant extent: an int, or an IntImm (the extents views derive from a buffer's shape).
      const auto* imm = shape[i].kind == K::kPrim ? shape[i].obj.as<IntImmNode>() : nullptr;
      if (shape[i].kind != K::kInt && !imm) {
        constant = false;
        continue;
      }
      int64_t extent = imm ? imm->value : shape[i].i;
      if (extent == -1) unknown = unknown < 0 ? static_cast<int>(i) : -2;
      else known *= extent;
    }
    for (const PrimExpr& d : b->shape) {
      const auto* imm = d.as<IntImmNode>();
      if (imm) total *= imm->value;
      else constant = false;
    }
    if (unknown == -2) Fail(span, "A.view: only one extent may be -1");
    if (unknown >= 0) {
      if (!constant || known == 0) Fail(span, "A.view: a -1 extent needs constant extents");
      shape[unknown] = Value::Int(total / known);
    } else if (constant && known != total) {
      Fail(span, absl::StrCat("A.view: the new shape has ", known, " elements, buffer ", b->name, " has ", total));
    }
  }
  // TVM re-declares the storage with the view's layout, or else the buffer's own (its default
  // layout is that of its shape).
  Value l;
  if (layout && layout->kind != K::kNone) {
    l = *layout;
  } else if (ObjectRef own = EffectiveLayout(b); own.defined()) {
    l = Value::Obj(K::kLayout, own);
  }
  return RedeclView(b, std::move(shape), std::move(l), PrimExpr(), nullptr, PrimExpr(), a);
}

// ------------------------------------------------------------------ T.* tile DSL calls

namespace {

// T.TileLayout(spec): a layout from `T.S[...] + T.R[...] + offset`.
Value CallTileLayout(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 1 || !a.kwargs.empty() || a.args[0].kind != K::kLayoutSpec) {
    p.Fail(span, "T.TileLayout takes one layout spec: T.TileLayout(T.S[extents : strides] + ...)");
  }
  return Value::Obj(K::kLayout, a.args[0].obj);
}

// T.TileLayout.from_iters(offset={...}): only the offset form, which TVM prints for a layout
// without iters.
Value CallTileLayoutFromIters(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (!a.args.empty()) p.Fail(span, "T.TileLayout.from_iters is supported with offset= only");
  Map<String, PrimExpr> offset;
  for (const auto& [k, v] : a.kwargs) {
    if (k != "offset" || v.kind != K::kDict) p.Fail(span, "T.TileLayout.from_iters takes offset={axis: value}");
    for (size_t i = 0; i < v.keys.size(); ++i) offset.Set(String(p.ToStr(v.keys[i], span)), p.ToPrim(v.items[i], span));
  }
  return Value::Obj(K::kLayout, TileLayout({}, {}, offset, span));
}

// T.ComposeLayout(per_element, swizzle_len, atom_len, tile_layout, swizzle_inner=True).
Value CallComposeLayout(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 4 || a.args[3].kind != K::kLayout || !a.args[3].obj.as<TileLayoutNode>()) {
    p.Fail(span, "T.ComposeLayout(per_element, swizzle_len, atom_len, tile_layout, swizzle_inner=True)");
  }
  auto n = make_object<ComposeLayoutNode>();
  n->per_element = static_cast<int32_t>(p.ToInt(a.args[0], span));
  n->swizzle_len = static_cast<int32_t>(p.ToInt(a.args[1], span));
  n->atom_len = static_cast<int32_t>(p.ToInt(a.args[2], span));
  n->tile_layout = Downcast<TileLayout>(a.args[3].obj);
  for (const auto& [k, v] : a.kwargs) {
    if (k != "swizzle_inner") p.Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.ComposeLayout"));
    n->swizzle_inner = p.ToBool(v, span);
  }
  n->span = span;
  return Value::Obj(K::kLayout, ComposeLayout(ObjectPtr<Object>(std::move(n))));
}

// T.address_of(A): the address of A's first element (otherwise the intrinsic, of an element).
Value CallAddressOf(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 1 || a.args[0].kind != K::kBuffer) return CallTirIntrinsic(p, a, c);
  Buffer b = Downcast<Buffer>(a.args[0].obj);
  Array<PrimExpr> zeros;
  for (size_t i = 0; i < b->shape.size(); ++i) zeros.push_back(IntImm(DataType::Int(32), 0));
  return Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.address_of"), {BufferLoad(b, zeros, span)}, span));
}

// T.ptr_byte_offset(ptr, offset, "dtype") (otherwise the intrinsic as written).
Value CallPtrByteOffset(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 3 || a.args[2].kind != K::kStr) return CallTirIntrinsic(p, a, c);
  // The pointee dtype is carried as a type_annotation call, as TVM builds it.
  DataType pointee = p.ToDType(a.args[2], span);
  PrimExpr ann = Call(pointee, Op("tirx.type_annotation"), {}, span);
  return Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.ptr_byte_offset"),
                                   {p.ToPrim(a.args[0], span), p.ToPrim(a.args[1], span), ann}, span));
}

// T.nki.<op>(...): a Trainium intrinsic of the registry, with TVM's defaults filled in.
Value CallNki(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  // Fill the optional parameters (by keyword or default), then build the call from the registry.
  for (const NkiSignature& sig : NkiSignatures()) {
    if (name.compare(4, std::string::npos, sig.name) != 0) continue;
    std::string unknown;
    std::vector<const Value*> given = BindToParams(a, sig.params, &unknown);
    if (!unknown.empty()) p.Fail(span, absl::StrCat("unexpected keyword argument '", unknown, "' for T.", name));
    std::vector<Value> args;
    for (size_t i = 0; i < sig.params.size(); ++i) {
      if (given[i]) args.push_back(*given[i]);
      else if (i >= sig.required) args.push_back(NkiDefault(sig.params[i]));
      else p.Fail(span, absl::StrCat("T.", name, " is missing argument '", sig.params[i], "'"));
    }
    for (size_t i = sig.params.size(); i < a.args.size(); ++i) args.push_back(a.args[i]);  // arity error below
    a.args = std::move(args);
    a.kwargs.clear();
  }
  return CallTirIntrinsic(p, a, c);
}

// T.hint("message", key=value, ...): a directive over the rest of the block (or a with body),
// an AttrStmt "tirx_hint" whose node is the {message, attrs...} map, as TVM builds it.
Value CallHint(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.size() > 1) p.Fail(span, "T.hint takes one positional argument (the message)");
  Map<String, ObjectRef> attrs;
  std::string message = a.args.empty() ? "" : p.ToStr(a.args[0], span);
  for (const auto& [k, v] : a.kwargs) {
    if (k == "message") message = p.ToStr(v, span);
  }
  if (!message.empty()) attrs.Set(String("message"), String(message));
  for (const auto& [k, v] : a.kwargs) {
    if (k == "message") continue;
    attrs.Set(String(k), v.kind == K::kRegion ? v.obj : p.ToAttrValue(v, v.span.defined() ? v.span : span));
  }
  c.NeedBody();
  p.tir_.BeginImplicit([attrs, span](Stmt body) {
    return AttrStmt(attrs, "tirx_hint", IntImm(DataType::Int(32), 1), body, span);
  });
  return Value::None();
}

// T.cuda.warp_sum(v, width=32) is T.cuda.warp_reduce(v, "sum", width); T.cuda.cta_sum(v,
// num_warps, scratch) is T.cuda.cta_reduce(v, "sum", num_warps, scratch); likewise max and min.
Value CallWarpCtaReduce(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  bool warp = absl::StartsWith(name, "cuda.warp_");
  std::string reduce = name.substr(warp ? 10 : 9);
  std::vector<std::string> params = warp ? std::vector<std::string>{"value", "width"}
                                         : std::vector<std::string>{"value", "num_warps", "scratch"};
  if (a.args.size() > params.size()) p.Fail(span, absl::StrCat("T.", name, " takes ", params.size(), " arguments"));
  std::string unknown;
  std::vector<const Value*> given = BindToParams(a, params, &unknown);
  if (!unknown.empty()) p.Fail(span, absl::StrCat("unexpected keyword argument '", unknown, "' for T.", name));
  std::vector<Value> args;
  for (size_t i = 0; i < params.size(); ++i) {
    if (given[i]) args.push_back(*given[i]);
    else if (warp && i == 1) args.push_back(Value::Int(32));  // width defaults to a full warp
    else p.Fail(span, absl::StrCat("T.", name, " is missing argument '", params[i], "'"));
  }
  args.insert(args.begin() + 1, Value::Str(reduce));
  CallArgs call;
  call.span = span;
  call.func_span = a.func_span;
  call.args = std::move(args);
  return p.CallT(warp ? "cuda.warp_reduce" : "cuda.cta_reduce", call);
}

// T.device_entry(): the rest of the function is device code.
Value CallDeviceEntry(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (!a.args.empty() || !a.kwargs.empty()) p.Fail(span, "T.device_entry() takes no arguments");
  c.NeedBody();
  p.tir_.BeginImplicit([span](Stmt body) {
    return AttrStmt(ObjectRef(), "tirx.device_entry", IntImm(DataType::Bool(), 1), body, span);
  });
  return Value::None();
}

// T.attr({key: value, ...}): the flat one-dict form (one AttrStmt per key, the first outermost,
// each over the rest of the block); T.attr(node, key, value) otherwise.
Value CallTileAttr(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 1 || !a.kwargs.empty()) return CallTirAttr(p, a, c);
  const Value& d = a.args[0];
  if (d.kind != K::kDict || d.keys.empty()) p.Fail(span, "T.attr({key: value, ...}) takes a dict of annotations");
  c.NeedBody();
  for (size_t i = 0; i < d.keys.size(); ++i) {
    std::string key = p.ToStr(d.keys[i], span);
    PrimExpr value = p.ToPrim(d.items[i], d.items[i].span.defined() ? d.items[i].span : span);
    p.tir_.BeginImplicit([key, value, span](Stmt body) { return AttrStmt(ObjectRef(), key, value, body, span); });
  }
  return Value::None();
}

// T.local_scalar / T.shared_scalar / T.alloc_scalar(dtype[, scope]): a one-element buffer that
// reads and writes without indices, like `x: T.int32`.
Value CallScalar(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  std::vector<std::string> params = {"dtype"};
  if (name == "alloc_scalar") params.push_back("scope");
  if (a.args.size() > params.size()) {
    p.Fail(span, absl::StrCat("T.", name, " takes at most ", params.size(), " positional arguments"));
  }
  DataType dtype = DataType::Float(32);
  std::string scope = name == "local_scalar" ? "local" : name == "shared_scalar" ? "shared" : "global";
  for (size_t i = 0; i < params.size(); ++i) {
    const Value* v = i < a.args.size() ? &a.args[i] : nullptr;
    for (const auto& [k, kv] : a.kwargs) {
      if (k == params[i]) v = &kv;
    }
    if (!v) continue;
    if (i == 0) dtype = p.ToDType(*v, v->span.defined() ? v->span : span);
    else scope = p.ToStr(*v, span);
  }
  for (const auto& [k, kv] : a.kwargs) {
    if (k != "dtype" && (k != "scope" || name != "alloc_scalar")) {
      p.Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
    }
  }
  c.NeedBody();
  Buffer buf = Buffer::Make(p.name_hint_.empty() ? "v" : p.name_hint_, {}, dtype, scope, span);
  Map<String, ObjectRef> annotations;
  annotations.Set(String("tirx.local_scalar"), IntImm(DataType::Bool(), 1));
  p.tir_.BeginImplicit([buf, annotations, span](Stmt body) { return AllocBuffer(buf, body, annotations, span); });
  Value v = Value::Obj(K::kBuffer, buf);
  v.b = true;  // a scalar: `x` reads it, `x = v` writes it
  return v;
}

// T.cta_id([4, 2]), T.thread_id([128]), T.lane_id(), ...: one ScopeIdDefStmt declaring a var per
// axis for the rest of the block.
Value CallScopeId(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  const ScopeIdFunction* fn = std::find_if(std::begin(kScopeIdFunctions), std::end(kScopeIdFunctions),
                                           [&](const ScopeIdFunction& f) { return name == f.name; });
  c.NeedBody();
  bool pair = fn->binding == ScopeBinding::kClusterCtaPair;
  // Positional order as TVM's functions: (extents, [preferred,] dtype); cta_id_in_pair(dtype).
  std::vector<std::string> params = pair ? std::vector<std::string>{"dtype"}
                                    : fn->takes_preferred ? std::vector<std::string>{"extents", "preferred", "dtype"}
                                                          : std::vector<std::string>{"extents", "dtype"};
  if (a.args.size() > params.size()) {
    p.Fail(span, absl::StrCat("T.", name, " takes at most ", params.size(), " positional arguments"));
  }
  std::vector<const Value*> given(params.size(), nullptr);
  for (size_t i = 0; i < a.args.size(); ++i) given[i] = &a.args[i];
  for (const auto& [k, v] : a.kwargs) {
    size_t i = 0;
    while (i < params.size() && params[i] != k) ++i;
    if (i == params.size()) p.Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
    if (given[i]) p.Fail(span, absl::StrCat("T.", name, " got argument '", k, "' twice"));
    given[i] = &v;
  }
  auto param = [&](const char* wanted) -> const Value* {
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i] == wanted && given[i] && given[i]->kind != K::kNone) return given[i];
    }
    return nullptr;
  };
  DataType dtype = DataType::Int(32);
  if (const Value* d = param("dtype")) dtype = p.ToDType(*d, d->span.defined() ? d->span : span);
  if (!dtype.is_scalar() || dtype.bits() != 32 || !(dtype.is_int() || dtype.is_uint())) {
    p.Fail(span, absl::StrCat("the dtype of a scope id must be \"int32\" or \"uint32\", got ", dtype.ToString()));
  }
  Array<PrimExpr> extents, preferred;
  if (pair) {
    extents.push_back(IntImm(DataType::Int(32), 2));  // a CTA pair has two members
  } else if (const Value* e = param("extents")) {
    if (!e->is_seq()) p.Fail(e->span.defined() ? e->span : span, absl::StrCat("T.", name, " takes a list of extents"));
    extents = p.ToPrimArray(*e, span);
    if (extents.empty()) p.Fail(span, absl::StrCat("T.", name, " needs at least one extent (or none to defer it)"));
  }
  if (const Value* pref = param("preferred")) {
    if (fn->binding != ScopeBinding::kClusterCta) {
      p.Fail(span, "preferred= is only valid for T.cta_id_in_cluster (a cluster->cta scope id)");
    }
    if (extents.empty()) p.Fail(span, "preferred= requires explicit extents");
    preferred = p.ToPrimArray(*pref, span);
  }
  size_t n = pair || extents.empty() ? 1 : extents.size();
  bool one_axis = fn->binding == ScopeBinding::kCtaWarp || fn->binding == ScopeBinding::kWarpgroupWarp ||
                  fn->binding == ScopeBinding::kCtaWarpgroup;
  if (one_axis && n != 1) p.Fail(span, absl::StrCat("T.", name, " only supports 1D extents, got ", n, "D"));

  // The vars take the assignment's names: `bx, by = T.cta_id([4, 2])`.
  Array<Var> vars;
  std::vector<Value> items;
  for (size_t i = 0; i < n; ++i) {
    std::string var_name = n == 1 && !p.name_hint_.empty() ? p.name_hint_
                           : i < p.name_hints_.size() && p.name_hints_.size() == n ? p.name_hints_[i]
                                                                              : std::string("v");
    Var v(var_name, dtype, span);
    vars.push_back(v);
    Value item = Value::Obj(K::kPrim, v);
    item.fresh_var = true;  // bound by name, not by a LetStmt; discarded when unassigned
    items.push_back(item);
  }
  ScopeBinding binding = fn->binding;
  p.tir_.BeginImplicit([vars, extents, binding, preferred, span](Stmt body) {
    return ScopeIdDefStmt(vars, extents, binding, body, preferred, span);
  });
  return n == 1 ? items[0] : Value::Seq(K::kTuple, std::move(items));
}

// T.ptx.<instruction>(...).
Value CallPtxInstruction(Parser& p, CallArgs& a, const TirCall& c) { return p.CallPtx(c.name.substr(4), a); }

}  // namespace

void AddTirTileCalls(TirCallTable* t) {
  t->by_name.emplace("TileLayout", &CallTileLayout);
  t->by_name.emplace("TileLayout.from_iters", &CallTileLayoutFromIters);
  t->by_name.emplace("ComposeLayout", &CallComposeLayout);
  t->by_name.emplace("address_of", &CallAddressOf);
  t->by_name.emplace("ptr_byte_offset", &CallPtrByteOffset);
  t->by_name.emplace("hint", &CallHint);
  for (const char* n : {"cuda.warp_sum", "cuda.warp_max", "cuda.warp_min", "cuda.cta_sum", "cuda.cta_max", "cuda.cta_min"}) {
    t->by_name.emplace(n, &CallWarpCtaReduce);
  }
  t->by_name.emplace("device_entry", &CallDeviceEntry);
  t->by_name.emplace("attr", &CallTileAttr);
  for (const char* n : {"local_scalar", "shared_scalar", "alloc_scalar"}) t->by_name.emplace(n, &CallScalar);
  for (const ScopeIdFunction& f : kScopeIdFunctions) t->by_name.emplace(f.name, &CallScopeId);
  t->by_prefix.emplace_back("ptx.", &CallPtxInstruction);
  t->by_prefix.emplace_back("nki.", &CallNki);
}

}  // namespace kiln::script::parser
