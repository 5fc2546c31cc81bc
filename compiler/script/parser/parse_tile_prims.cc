// TVMScript parser, TVM v0.26's TIRx tile primitives: `T.tile.memset(A[0:16], T.float32(1.25),
// dispatch="v10", foo=42)` (also written `Tx.memset(...)` with `from tvm.script.tirx import tile
// as Tx`) is one TilePrimitiveCall statement. The namespace is the cooperating scope: `T.tile.`
// (and `T.thread.`) is one thread, `T.warp.`, `T.wg.` / `T.warpgroup.`, `T.cta.`, `T.cluster.`.
//
// The primitives read here are those whose operands are buffer regions and values, as TVM's
// builder (tirx/script/builder/tirx.py) defines them: positional or named operands, then
// workspace= (a dict of buffers), dispatch= (a variant name) and any other keyword, which goes to
// the call's config. As in TVM's builder, a whole buffer stands for its full region, a Python
// float becomes a float32 constant, and the in-place unary forms (`T.tile.exp(A)`) take the
// destination as the source too. gemm(D, A, B, C, transpose_A, transpose_B, alpha, beta) and the
// reductions sum/max/min(dst, src, axes, accum) take flags and axes besides regions; as TVM's
// builder does, their defaults are filled in (False, alpha 1.0, beta 0.0, axes -1) and one axis
// becomes a one-element tuple, so the call always holds every operand. Primitives whose arguments
// TVM rewrites further (binary/unary_reduce's op names, select) are not read yet and
// fail with a message naming them. `with T.tile.compose_op(workspace=..., dispatch=..., **config):`
// gathers the tile primitive calls of its body into one compose_op call whose operands are those
// calls, as TVM's ComposeOpFrame does; any other statement in the body is an error at the `with`.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/script/parser/handlers.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// The value TVM's builder gives an operand the call leaves out.
enum class Fill { kNone, kFalse, kFloatOne, kFloatZero, kLastAxis };

// One tile primitive: its operand names in order, whether a missing `src` means in place, and the
// defaults of its trailing operands (aligned with `operands`; empty when none has one).
struct TilePrimitive {
  const char* name;
  std::vector<const char*> operands;
  bool in_place;  // `src` defaults to `dst`
  std::vector<Fill> fills;
};

const std::vector<TilePrimitive>& TilePrimitives() {
  static const std::vector<TilePrimitive>* const kPrims = new std::vector<TilePrimitive>{
      {"zero", {"dst", "src"}, true},
      {"sqrt", {"dst", "src", "bias", "scale"}, true},
      {"reciprocal", {"dst", "src"}, true},
      {"exp", {"dst", "src", "bias", "scale"}, true},
      {"exp2", {"dst", "src", "bias", "scale"}, true},
      {"log2", {"dst", "src", "bias", "scale"}, true},
      {"silu", {"dst", "src"}, false},
      {"cast", {"dst", "src"}, false},
      {"copy", {"dst", "src"}, false},
      {"copy_async", {"dst", "src"}, false},
      {"permute_layout", {"dst", "src"}, false},
      {"fill", {"dst", "value"}, false},
      {"memset", {"dst", "value"}, false},
      {"add", {"dst", "src1", "src2"}, false},
      {"sub", {"dst", "src1", "src2"}, false},
      {"mul", {"dst", "src1", "src2"}, false},
      {"fdiv", {"dst", "src1", "src2"}, false},
      {"maximum", {"dst", "src1", "src2"}, false},
      {"minimum", {"dst", "src1", "src2"}, false},
      {"fma", {"dst", "src", "scale", "bias"}, false},
      {"gemm", {"D", "A", "B", "C", "transpose_A", "transpose_B", "alpha", "beta"}, false,
       {Fill::kNone, Fill::kNone, Fill::kNone, Fill::kNone, Fill::kFalse, Fill::kFalse, Fill::kFloatOne, Fill::kFloatZero}},
      {"sum", {"dst", "src", "axes", "accum"}, false, {Fill::kNone, Fill::kNone, Fill::kLastAxis, Fill::kFalse}},
      {"max", {"dst", "src", "axes", "accum"}, false, {Fill::kNone, Fill::kNone, Fill::kLastAxis, Fill::kFalse}},
      {"min", {"dst", "src", "axes", "accum"}, false, {Fill::kNone, Fill::kNone, Fill::kLastAxis, Fill::kFalse}},
  };
  return *kPrims;
}

const TilePrimitive* FindTilePrimitive(const std::string& name) {
  for (const TilePrimitive& t : TilePrimitives()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

// A buffer as its full region (TVM's `buffer[:, :, ...]`).
BufferRegion FullRegion(const Buffer& b) {
  Array<Range> region;
  for (const PrimExpr& e : b->shape) region.push_back(Range(IntImm(e.dtype(), 0), e));
  return BufferRegion(b, region);
}

// A default operand, as TVM's builder fills it.
ObjectRef FillOperand(Fill f, const Span& span) {
  switch (f) {
    case Fill::kFalse: return IntImm(DataType::Bool(), 0, span);
    case Fill::kFloatOne: return FloatImm(DataType::Float(32), 1.0, span);
    case Fill::kFloatZero: return FloatImm(DataType::Float(32), 0.0, span);
    case Fill::kLastAxis: return Array<ObjectRef>{IntImm(DataType::Int(32), -1, span)};
    case Fill::kNone: break;
  }
  return ObjectRef();
}

// Reduction axes: one int or a tuple/list of ints, kept as a tuple (TVM's _wrap_elem_in_tuple).
ObjectRef AxesOperand(Parser& p, const std::string& callee, const Value& v, const Span& span) {
  std::vector<Value> items = v.is_seq() ? v.items : std::vector<Value>{v};
  Array<ObjectRef> axes;
  for (const Value& x : items) {
    if (x.kind != K::kInt) p.Fail(SpanOr(x, span), absl::StrCat(callee, ": axes= takes an int or a tuple of ints"));
    axes.push_back(IntImm(DataType::Int(32), x.i, SpanOr(x, span)));
  }
  return axes;
}

ObjectRef TileOperand(const Parser& p, const Value& v, const Span& span) {
  if (v.kind == K::kBuffer) return FullRegion(Downcast<Buffer>(v.obj));
  if (v.kind == K::kRegion) return v.obj;
  if (v.kind == K::kFloat) return FloatImm(DataType::Float(32), v.f);
  return p.ToPrim(v, span);
}

// The keywords every tile primitive and compose_op take besides their operands.
struct TileKeywords {
  Map<String, Buffer> workspace;
  Map<String, ObjectRef> config;
  std::string dispatch;
};

// workspace= (a dict of buffers, kept in key order), dispatch= (a variant name), or any other
// keyword, which TVM's builders keep as a config entry.
void TileKeyword(Parser& p, const std::string& callee, const std::string& k, const Value& v, const Span& at,
                 TileKeywords* kw) {
  if (k == "workspace") {
    if (v.kind == K::kNone) return;
    if (v.kind != K::kDict) p.Fail(at, absl::StrCat(callee, ": workspace= takes a dict of buffers"));
    std::vector<std::pair<std::string, Buffer>> entries;
    for (size_t i = 0; i < v.keys.size(); ++i) {
      if (v.items[i].kind != K::kBuffer) p.Fail(at, absl::StrCat(callee, ": workspace= takes a dict of buffers"));
      entries.emplace_back(p.ToStr(v.keys[i], at), Downcast<Buffer>(v.items[i].obj));
    }
    std::sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [name, b] : entries) kw->workspace.Set(String(name), b);
  } else if (k == "dispatch") {
    if (v.kind == K::kNone) return;
    kw->dispatch = p.ToStr(v, at);
    if (kw->dispatch.empty()) p.Fail(at, absl::StrCat(callee, ": dispatch= names a variant; it cannot be empty"));
  } else {
    kw->config.Set(String(k), v.kind == K::kRegion ? v.obj : p.ToAttrValue(v, at));
  }
}

// `T.<ns>.<op>(...)`: `c.name` is "<ns>.<op>" (or "tile.<ns>.<op>" reached through `Tx.<ns>.`).
Value CallTilePrimitive(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  std::string rest = c.name;
  std::string ns = rest.substr(0, rest.find('.'));
  rest = rest.substr(ns.size() + 1);
  TileScope scope = TileScope::kThread;
  if (ns == "tile" && rest.find('.') != std::string::npos) {  // Tx.warp.copy
    ns = rest.substr(0, rest.find('.'));
    rest = rest.substr(ns.size() + 1);
  }
  if (!TileScopeFromNamespace(ns, &scope) || rest.find('.') != std::string::npos) {
    p.Fail(a.func_span, absl::StrCat("'T.", c.name_in, "' is not a tile primitive"));
  }
  const TilePrimitive* prim = FindTilePrimitive(rest);
  if (prim == nullptr) {
    p.Fail(a.func_span, absl::StrCat("T.", ns, ".", rest, ": '", rest,
                                     "' is not a tile primitive kiln reads (it reads ",
                                     absl::StrJoin(TilePrimitives(), ", ",
                                                   [](std::string* out, const TilePrimitive& t) { out->append(t.name); }),
                                     ")"));
  }
  std::string callee = absl::StrCat("T.", ns, ".", rest);
  const std::vector<const char*>& names = prim->operands;
  if (a.args.size() > names.size()) {
    p.Fail(span, absl::StrCat(callee, " takes at most ", names.size(), " operands (", absl::StrJoin(names, ", "),
                              "), got ", a.args.size()));
  }
  std::vector<const Value*> operands(names.size(), nullptr);
  for (size_t i = 0; i < a.args.size(); ++i) operands[i] = &a.args[i];
  TileKeywords kw;
  // Keyword order does not matter to TVM; kiln's maps keep insertion order, so the config is
  // filled in key order, the order it prints in.
  std::vector<std::pair<std::string, Value>> kwargs(a.kwargs.begin(), a.kwargs.end());
  std::sort(kwargs.begin(), kwargs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [k, v] : kwargs) {
    Span at = SpanOr(v, span);
    auto it = std::find_if(names.begin(), names.end(), [&](const char* n) { return k == n; });
    if (it != names.end()) {
      size_t i = it - names.begin();
      if (operands[i]) p.Fail(at, absl::StrCat(callee, ": operand '", k, "' is given twice"));
      operands[i] = &v;
    } else if (k == "scope") {
      if (ns != "tile") {
        p.Fail(at, absl::StrCat(callee, ": the scope is given by the namespace '", ns, "'; scope= is not allowed too"));
      }
      std::string sc = p.ToStr(v, at);
      if (sc == "tile" || !TileScopeFromNamespace(sc, &scope)) {
        p.Fail(at, absl::StrCat(callee, ": unknown scope '", sc, "' (expected thread, warp, warpgroup, cta or cluster)"));
      }
    } else {
      TileKeyword(p, callee, k, v, at, &kw);
    }
  }
  if (!operands[0]) p.Fail(span, absl::StrCat(callee, ": missing operand '", names[0], "'"));
  if (operands[0]->kind != K::kBuffer && operands[0]->kind != K::kRegion) {
    p.Fail(SpanOr(*operands[0], span), absl::StrCat(callee, ": '", names[0], "' must be a buffer or a buffer region"));
  }
  if (prim->in_place && (!operands[1] || operands[1]->kind == K::kNone)) operands[1] = operands[0];
  if (!prim->fills.empty()) {
    Array<ObjectRef> args;
    for (size_t i = 0; i < names.size(); ++i) {
      const Value* v = operands[i];
      if (!v || v->kind == K::kNone) {
        if (prim->fills[i] == Fill::kNone) p.Fail(span, absl::StrCat(callee, ": missing operand '", names[i], "'"));
        args.push_back(FillOperand(prim->fills[i], span));
      } else if (prim->fills[i] == Fill::kNone && v->kind != K::kBuffer && v->kind != K::kRegion) {
        p.Fail(SpanOr(*v, span), absl::StrCat(callee, ": '", names[i], "' must be a buffer or a buffer region"));
      } else if (std::string(names[i]) == "axes") {
        args.push_back(AxesOperand(p, callee, *v, SpanOr(*v, span)));
      } else {
        args.push_back(TileOperand(p, *v, SpanOr(*v, span)));
      }
    }
    c.NeedBody();
    p.tir_.Emit(TilePrimitiveCall(rest, args, kw.workspace, kw.config, kw.dispatch, scope, span));
    return Value::None();
  }
  // Operands are kept up to the last one given; TVM leaves a missing optional one as None, which
  // kiln's IR does not hold, so a gap before a given operand is an error.
  size_t n = operands.size();
  while (n > 0 && (!operands[n - 1] || operands[n - 1]->kind == K::kNone)) --n;
  Array<ObjectRef> args;
  for (size_t i = 0; i < n; ++i) {
    if (!operands[i] || operands[i]->kind == K::kNone) {
      p.Fail(span, absl::StrCat(callee, ": operand '", names[i], "' must be given when a later one is"));
    }
    args.push_back(TileOperand(p, *operands[i], SpanOr(*operands[i], span)));
  }
  c.NeedBody();
  p.tir_.Emit(TilePrimitiveCall(rest, args, kw.workspace, kw.config, kw.dispatch, scope, span));
  return Value::None();
}

}  // namespace

void Parser::TIRComposeOp(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  const doc::WithItem& item = s.items[0];
  Span cspan = SpanOf(item.context_expr->pos);
  const std::string callee = "T.tile.compose_op";
  if (item.optional_vars) Fail(item.optional_vars->pos, absl::StrCat("with ", callee, "(...) binds no value"));
  if (!item.context_expr->args.empty()) {
    Fail(item.context_expr->args[0]->pos, absl::StrCat(callee, " takes keyword arguments only (workspace=, dispatch=, config)"));
  }
  std::vector<std::pair<std::string, Value>> kwargs;
  for (const doc::Keyword& k : item.context_expr->keywords) kwargs.emplace_back(k.arg, Eval(k.value));
  std::sort(kwargs.begin(), kwargs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  TileKeywords kw;
  for (const auto& [k, v] : kwargs) TileKeyword(*this, callee, k, v, SpanOr(v, cspan), &kw);
  tir_.BeginScope();
  PushScope();
  ParseTIRBody(s.body);
  PopScope();
  Stmt body = tir_.EndScope();
  // The body's statements become the operands; TVM's frame accepts tile primitive calls only and
  // reports anything else at the with statement.
  std::vector<Stmt> stmts;
  if (const auto* seq = body.as<SeqStmtNode>()) {
    for (const Stmt& st : seq->seq) stmts.push_back(st);
  } else if (const auto* e = body.as<EvaluateNode>(); !(e && e->value.as<IntImmNode>())) {
    stmts.push_back(body);  // (an empty body is Evaluate(0))
  }
  Array<ObjectRef> ops;
  for (const Stmt& st : stmts) {
    if (!st.as<TilePrimitiveCallNode>()) {
      Fail(span, absl::StrCat("only tile primitive calls are allowed in the body of ", callee, "; it holds a ",
                              st->type_key()));
    }
    ops.push_back(st);
  }
  tir_.Emit(TilePrimitiveCall("compose_op", ops, kw.workspace, kw.config, kw.dispatch, TileScope::kThread, span));
}

void AddTirTilePrimitiveCalls(TirCallTable* t) {
  for (const char* ns : {"tile.", "thread.", "warp.", "wg.", "warpgroup.", "cta.", "cluster."}) {
    t->by_prefix.emplace_back(ns, &CallTilePrimitive);
  }
}

}  // namespace kiln::script::parser
