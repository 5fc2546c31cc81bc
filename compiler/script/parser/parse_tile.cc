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
//    ScopeIdDefStmt declaring a var per axis for the rest of the block.
// Kept apart from parse_tir.cc because the family is self-contained and TVM keeps it in its own
// builder layer (tirx/script/builder).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/script/parser/parser_impl.h"
#include "compiler/tir/op/op.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
using K = Value::Kind;

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

}  // namespace

std::string CanonicalDTypeName(const std::string& name) {
  // TVM's shorthand aliases (T.f32, T.i32, ...).
  static const std::pair<const char*, const char*> kAliases[] = {
      {"f16", "float16"}, {"f32", "float32"}, {"f64", "float64"}, {"bf16", "bfloat16"},
      {"i8", "int8"}, {"i16", "int16"}, {"i32", "int32"}, {"i64", "int64"},
      {"u8", "uint8"}, {"u16", "uint16"}, {"u32", "uint32"}, {"u64", "uint64"},
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
    return Value::Obj(K::kPrim, Call(base.dtype(), Op("tirx.ptx.addr"), {base, ToPrim(a.args[1], span)}, span));
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

bool Parser::CallTileDSL(const std::string& name, CallArgs& a, Value* out) {
  const Span& span = a.span;
  auto need_body = [&]() {
    if (!tir_.func()) Fail(span, absl::StrCat("T.", name, " is a statement: it can only be used in a T.prim_func"));
  };
  if (name.rfind("ptx.", 0) == 0) {
    *out = CallPtx(name.substr(4), a);
    return true;
  }
  if (name == "address_of" && a.args.size() == 1 && a.args[0].kind == K::kBuffer) {
    // T.address_of(A): the address of A's first element.
    Buffer b = Downcast<Buffer>(a.args[0].obj);
    Array<PrimExpr> zeros;
    for (size_t i = 0; i < b->shape.size(); ++i) zeros.push_back(IntImm(DataType::Int(32), 0));
    *out = Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.address_of"), {BufferLoad(b, zeros, span)}, span));
    return true;
  }
  if (name == "ptr_byte_offset" && a.args.size() == 3 && a.args[2].kind == K::kStr) {
    // The pointee dtype is carried as a type_annotation call, as TVM builds it.
    DataType pointee = ToDType(a.args[2], span);
    PrimExpr ann = Call(pointee, Op("tirx.type_annotation"), {}, span);
    *out = Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.ptr_byte_offset"),
                                     {ToPrim(a.args[0], span), ToPrim(a.args[1], span), ann}, span));
    return true;
  }
  if (name.rfind("nki.", 0) == 0) {
    // Fill the optional parameters (by keyword or default), then build the call from the registry.
    for (const NkiSignature& sig : NkiSignatures()) {
      if (name.compare(4, std::string::npos, sig.name) != 0) continue;
      std::vector<const Value*> given(sig.params.size(), nullptr);
      for (size_t i = 0; i < a.args.size() && i < given.size(); ++i) given[i] = &a.args[i];
      for (const auto& [k, v] : a.kwargs) {
        size_t i = 0;
        while (i < sig.params.size() && k != sig.params[i]) ++i;
        if (i == sig.params.size()) Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
        given[i] = &v;
      }
      std::vector<Value> args;
      for (size_t i = 0; i < sig.params.size(); ++i) {
        if (given[i]) args.push_back(*given[i]);
        else if (i >= sig.required) args.push_back(NkiDefault(sig.params[i]));
        else Fail(span, absl::StrCat("T.", name, " is missing argument '", sig.params[i], "'"));
      }
      for (size_t i = sig.params.size(); i < a.args.size(); ++i) args.push_back(a.args[i]);  // arity error below
      a.args = std::move(args);
      a.kwargs.clear();
    }
    return false;
  }
  if (name == "hint") {
    // T.hint("message", key=value, ...): a directive over the rest of the block (or a with body),
    // an AttrStmt "tirx_hint" whose node is the {message, attrs...} map, as TVM builds it.
    if (a.args.size() > 1) Fail(span, "T.hint takes one positional argument (the message)");
    Map<String, ObjectRef> attrs;
    std::string message = a.args.empty() ? "" : ToStr(a.args[0], span);
    for (const auto& [k, v] : a.kwargs) {
      if (k == "message") message = ToStr(v, span);
    }
    if (!message.empty()) attrs.Set(String("message"), String(message));
    for (const auto& [k, v] : a.kwargs) {
      if (k == "message") continue;
      attrs.Set(String(k), v.kind == K::kRegion ? v.obj : ToAttrValue(v, v.span.defined() ? v.span : span));
    }
    need_body();
    tir_.BeginImplicit([attrs, span](Stmt body) {
      return AttrStmt(attrs, "tirx_hint", IntImm(DataType::Int(32), 1), body, span);
    });
    *out = Value::None();
    return true;
  }
  for (const char* reduce : {"sum", "max", "min"}) {
    // T.cuda.warp_sum(v, width=32) is T.cuda.warp_reduce(v, "sum", width); T.cuda.cta_sum(v,
    // num_warps, scratch) is T.cuda.cta_reduce(v, "sum", num_warps, scratch).
    bool warp = name == absl::StrCat("cuda.warp_", reduce);
    if (!warp && name != absl::StrCat("cuda.cta_", reduce)) continue;
    std::vector<std::string> params = warp ? std::vector<std::string>{"value", "width"}
                                           : std::vector<std::string>{"value", "num_warps", "scratch"};
    std::vector<Value> args(params.size());
    std::vector<bool> given(params.size(), false);
    for (size_t i = 0; i < a.args.size() && i < params.size(); ++i) args[i] = a.args[i], given[i] = true;
    if (a.args.size() > params.size()) Fail(span, absl::StrCat("T.", name, " takes ", params.size(), " arguments"));
    for (const auto& [k, v] : a.kwargs) {
      size_t i = 0;
      while (i < params.size() && k != params[i]) ++i;
      if (i == params.size()) Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
      args[i] = v, given[i] = true;
    }
    if (warp && !given[1]) args[1] = Value::Int(32), given[1] = true;
    for (size_t i = 0; i < params.size(); ++i) {
      if (!given[i]) Fail(span, absl::StrCat("T.", name, " is missing argument '", params[i], "'"));
    }
    args.insert(args.begin() + 1, Value::Str(reduce));
    CallArgs call;
    call.span = span;
    call.func_span = a.func_span;
    call.args = std::move(args);
    *out = CallT(warp ? "cuda.warp_reduce" : "cuda.cta_reduce", call);
    return true;
  }
  if (name == "device_entry") {
    if (!a.args.empty() || !a.kwargs.empty()) Fail(span, "T.device_entry() takes no arguments");
    need_body();
    tir_.BeginImplicit([span](Stmt body) {
      return AttrStmt(ObjectRef(), "tirx.device_entry", IntImm(DataType::Bool(), 1), body, span);
    });
    *out = Value::None();
    return true;
  }
  if (name == "attr" && a.args.size() == 1 && a.kwargs.empty()) {
    const Value& d = a.args[0];
    if (d.kind != K::kDict || d.keys.empty()) Fail(span, "T.attr({key: value, ...}) takes a dict of annotations");
    need_body();
    for (size_t i = 0; i < d.keys.size(); ++i) {
      std::string key = ToStr(d.keys[i], span);
      PrimExpr value = ToPrim(d.items[i], d.items[i].span.defined() ? d.items[i].span : span);
      tir_.BeginImplicit([key, value, span](Stmt body) { return AttrStmt(ObjectRef(), key, value, body, span); });
    }
    *out = Value::None();
    return true;
  }

  if (name == "local_scalar" || name == "shared_scalar" || name == "alloc_scalar") {
    // A one-element buffer that reads and writes without indices, like `x: T.int32`.
    std::vector<std::string> params = {"dtype"};
    if (name == "alloc_scalar") params.push_back("scope");
    if (a.args.size() > params.size()) {
      Fail(span, absl::StrCat("T.", name, " takes at most ", params.size(), " positional arguments"));
    }
    DataType dtype = DataType::Float(32);
    std::string scope = name == "local_scalar" ? "local" : name == "shared_scalar" ? "shared" : "global";
    for (size_t i = 0; i < params.size(); ++i) {
      const Value* v = i < a.args.size() ? &a.args[i] : nullptr;
      for (const auto& [k, kv] : a.kwargs) {
        if (k == params[i]) v = &kv;
      }
      if (!v) continue;
      if (i == 0) dtype = ToDType(*v, v->span.defined() ? v->span : span);
      else scope = ToStr(*v, span);
    }
    for (const auto& [k, kv] : a.kwargs) {
      if (k != "dtype" && (k != "scope" || name != "alloc_scalar")) {
        Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
      }
    }
    need_body();
    Buffer buf = Buffer::Make(name_hint_.empty() ? "v" : name_hint_, {}, dtype, scope, span);
    Map<String, ObjectRef> annotations;
    annotations.Set(String("tirx.local_scalar"), IntImm(DataType::Bool(), 1));
    tir_.BeginImplicit([buf, annotations, span](Stmt body) { return AllocBuffer(buf, body, annotations, span); });
    *out = Value::Obj(K::kBuffer, buf);
    out->b = true;  // a scalar: `x` reads it, `x = v` writes it
    return true;
  }

  const ScopeIdFunction* fn = nullptr;
  for (const ScopeIdFunction& f : kScopeIdFunctions) {
    if (name == f.name) fn = &f;
  }
  if (!fn) return false;
  need_body();
  bool pair = fn->binding == ScopeBinding::kClusterCtaPair;
  // Positional order as TVM's functions: (extents, [preferred,] dtype); cta_id_in_pair(dtype).
  std::vector<std::string> params = pair ? std::vector<std::string>{"dtype"}
                                    : fn->takes_preferred ? std::vector<std::string>{"extents", "preferred", "dtype"}
                                                          : std::vector<std::string>{"extents", "dtype"};
  if (a.args.size() > params.size()) {
    Fail(span, absl::StrCat("T.", name, " takes at most ", params.size(), " positional arguments"));
  }
  std::vector<const Value*> given(params.size(), nullptr);
  for (size_t i = 0; i < a.args.size(); ++i) given[i] = &a.args[i];
  for (const auto& [k, v] : a.kwargs) {
    size_t i = 0;
    while (i < params.size() && params[i] != k) ++i;
    if (i == params.size()) Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
    if (given[i]) Fail(span, absl::StrCat("T.", name, " got argument '", k, "' twice"));
    given[i] = &v;
  }
  auto param = [&](const char* p) -> const Value* {
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i] == p && given[i] && given[i]->kind != K::kNone) return given[i];
    }
    return nullptr;
  };
  DataType dtype = DataType::Int(32);
  if (const Value* d = param("dtype")) dtype = ToDType(*d, d->span.defined() ? d->span : span);
  if (!dtype.is_scalar() || dtype.bits() != 32 || !(dtype.is_int() || dtype.is_uint())) {
    Fail(span, absl::StrCat("the dtype of a scope id must be \"int32\" or \"uint32\", got ", dtype.ToString()));
  }
  Array<PrimExpr> extents, preferred;
  if (pair) {
    extents.push_back(IntImm(DataType::Int(32), 2));  // a CTA pair has two members
  } else if (const Value* e = param("extents")) {
    if (!e->is_seq()) Fail(e->span.defined() ? e->span : span, absl::StrCat("T.", name, " takes a list of extents"));
    extents = ToPrimArray(*e, span);
    if (extents.empty()) Fail(span, absl::StrCat("T.", name, " needs at least one extent (or none to defer it)"));
  }
  if (const Value* p = param("preferred")) {
    if (fn->binding != ScopeBinding::kClusterCta) {
      Fail(span, "preferred= is only valid for T.cta_id_in_cluster (a cluster->cta scope id)");
    }
    if (extents.empty()) Fail(span, "preferred= requires explicit extents");
    preferred = ToPrimArray(*p, span);
  }
  size_t n = pair || extents.empty() ? 1 : extents.size();
  bool one_axis = fn->binding == ScopeBinding::kCtaWarp || fn->binding == ScopeBinding::kWarpgroupWarp ||
                  fn->binding == ScopeBinding::kCtaWarpgroup;
  if (one_axis && n != 1) Fail(span, absl::StrCat("T.", name, " only supports 1D extents, got ", n, "D"));

  // The vars take the assignment's names: `bx, by = T.cta_id([4, 2])`.
  Array<Var> vars;
  std::vector<Value> items;
  for (size_t i = 0; i < n; ++i) {
    std::string var_name = n == 1 && !name_hint_.empty() ? name_hint_
                           : i < name_hints_.size() && name_hints_.size() == n ? name_hints_[i]
                                                                              : std::string("v");
    Var v(var_name, dtype, span);
    vars.push_back(v);
    Value item = Value::Obj(K::kPrim, v);
    item.fresh_var = true;  // bound by name, not by a LetStmt; discarded when unassigned
    items.push_back(item);
  }
  ScopeBinding binding = fn->binding;
  tir_.BeginImplicit([vars, extents, binding, preferred, span](Stmt body) {
    return ScopeIdDefStmt(vars, extents, binding, body, preferred, span);
  });
  *out = n == 1 ? items[0] : Value::Seq(K::kTuple, std::move(items));
  return true;
}

}  // namespace kiln::script::parser
