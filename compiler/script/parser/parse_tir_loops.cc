// TVMScript parser, TIR loop iterators: range(...) and T.serial / T.parallel / T.vectorized /
// T.unroll / T.thread_binding(...) (one loop each), T.grid(...) (a loop nest). They evaluate to a
// kLoops value that the `for` statement (parse_tir_stmt.cc) turns into For nodes.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// T.serial / T.parallel / T.vectorized / T.unroll / T.thread_binding, and range() (as T.serial).
Value CallLoop(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  LoopSpec l;
  l.kind = name == "parallel" ? ForKind::kParallel : name == "vectorized" ? ForKind::kVectorized
         : name == "unroll" ? ForKind::kUnrolled : name == "thread_binding" ? ForKind::kThreadBinding : ForKind::kSerial;
  std::vector<Value> pos = a.args;
  // T.thread_binding(extent, "threadIdx.x") or (start, stop, "threadIdx.x"): the tag may be the
  // last positional argument.
  if (name == "thread_binding" && pos.size() >= 2 && pos.back().kind == K::kStr) {
    l.thread = pos.back().s;
    pos.pop_back();
  }
  if (pos.size() == 3) {  // range(start, stop, step)
    l.step = p.ToPrim(pos[2], SpanOr(pos[2], span));
    pos.pop_back();
  }
  if (pos.empty() || pos.size() > 2) p.Fail(span, absl::StrCat(c.name_in == "serial" ? "range" : "T." + name, " expects (stop), (start, stop) or (start, stop, step)"));
  if (pos.size() == 1) {
    l.extent = p.ToPrim(pos[0], SpanOr(pos[0], span));
    l.min = IntImm(l.extent.dtype(), 0);
  } else {
    PrimExpr stop = pos[1].is_number() ? PrimExpr() : p.ToPrim(pos[1], SpanOr(pos[1], span));
    PrimExpr start = pos[0].is_number() ? PrimExpr() : p.ToPrim(pos[0], SpanOr(pos[0], span));
    DataType t = stop.defined() ? stop.dtype() : start.defined() ? start.dtype() : DataType::Int(32);
    if (!t.is_int() && !t.is_uint()) p.Fail(span, absl::StrCat("loop bounds must be integers, got ", t.ToString()));
    if (!start.defined()) start = p.ToPrimAs(t, pos[0], span);
    if (!stop.defined()) stop = p.ToPrimAs(t, pos[1], span);
    l.min = start;
    const auto* s0 = start.as<IntImmNode>();
    const auto* s1 = stop.as<IntImmNode>();
    const auto* add = stop.as<AddNode>();
    if (s0 && s1) {
      l.extent = IntImm(stop.dtype(), s1->value - s0->value);
    } else if (add && StructuralEqual(add->a, start)) {
      l.extent = add->b;  // range(m, m + n): the printer's spelling of extent n
    } else {
      absl::StatusOr<PrimExpr> e = tir::BinaryOp(tir::BinaryOpKind::kSub, tir::Operand(stop), tir::Operand(start), span);
      if (!e.ok()) p.Fail(span, std::string(e.status().message()));
      l.extent = *e;
    }
    if (l.min.dtype() != l.extent.dtype()) {
      absl::StatusOr<PrimExpr> m = tir::CastTo(l.extent.dtype(), l.min, span);
      if (m.ok()) l.min = *m;
    }
  }
  for (const auto& [k, v] : a.kwargs) {
    if (k == "annotations") l.annotations = p.ToAttrMap(v, span);
    else if (k == "step") l.step = p.ToPrim(v, SpanOr(v, span));
    else if (k == "thread" && name == "thread_binding") l.thread = p.ToStr(v, span);
    else if (k == "unroll" && name != "thread_binding") p.AddUnrollAnnotation(v, &l.annotations, SpanOr(v, span));
    else if (k == "dtype" && name != "thread_binding") p.RetypeLoop(p.ToDType(v, SpanOr(v, span)), &l, SpanOr(v, span));
    else p.Fail(SpanOr(v, span), absl::StrCat("unexpected keyword argument '", k, "'"));
  }
  if (name == "thread_binding") {
    bool valid = absl::StartsWith(l.thread, "vthread") || l.thread == "warp" ||
                 ((absl::StartsWith(l.thread, "blockIdx.") || absl::StartsWith(l.thread, "threadIdx.")) &&
                  l.thread.size() == 10 + (l.thread[0] == 't') && std::string("xyz").find(l.thread.back()) != std::string::npos);
    if (!valid) {
      p.Fail(span, absl::StrCat("invalid thread tag \"", l.thread, "\"; expected blockIdx.{x,y,z}, threadIdx.{x,y,z}, vthread* or warp"));
    }
  }
  Value out = Value::Of(K::kLoops);
  out.loops.push_back(l);
  return out;
}

// T.grid(*extents): a loop nest, one loop per extent (from 0) or (min, extent) pair.
Value CallGrid(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  Value out = Value::Of(K::kLoops);
  for (size_t i = 0; i < a.args.size(); ++i) {
    LoopSpec l;
    // TVM's builder takes an extent or a (min, extent) pair and rejects anything else at the call.
    const Value& arg = a.args[i];
    bool pair = arg.is_seq() && arg.items.size() == 2;
    if (pair) {
      // (min, extent): the loop variable takes the min's dtype and the extent is converted to it.
      l.min = p.ToPrim(arg.items[0], SpanOr(arg.items[0], span));
      l.extent = p.ToPrimAs(l.min.dtype(), arg.items[1], SpanOr(arg.items[1], span));
    } else {
      l.extent = c.Prim(i);
    }
    if (!l.extent.dtype().is_int() && !l.extent.dtype().is_uint()) {
      p.Fail(span, absl::StrCat("invalid type for grid extent: ", l.extent.dtype().ToString(),
                                                   ", expected an integer"));
    }
    if (!pair) l.min = IntImm(l.extent.dtype(), 0);
    out.loops.push_back(l);
  }
  if (out.loops.empty()) p.Fail(span, "T.grid needs at least one extent");
  return out;
}

}  // namespace

void Parser::AddUnrollAnnotation(const Value& v, Map<String, ObjectRef>* annotations, const Span& span) const {
  if (v.kind == K::kBool) {
    annotations->Set(ToBool(v, span) ? "pragma_unroll" : "disable_unroll", IntImm(DataType::Bool(), 1));
    return;
  }
  int64_t n = ToInt(v, span);
  if (n < 1) Fail(span, "unroll must be True, False or a positive integer");
  annotations->Set("pragma_unroll", IntImm(DataType::Int(32), n));
}

void Parser::RetypeLoop(DataType dtype, LoopSpec* loop, const Span& span) const {
  if (dtype != DataType::Int(32) && dtype != DataType::UInt(32) && dtype != DataType::Int(64)) {
    Fail(span, absl::StrCat("a loop variable is int32, uint32 or int64, not ", dtype.ToString()));
  }
  for (PrimExpr* e : {&loop->min, &loop->extent, &loop->step}) {
    if (!e->defined() || e->dtype() == dtype) continue;
    absl::StatusOr<PrimExpr> c = tir::CastTo(dtype, *e, span);
    if (!c.ok()) Fail(span, std::string(c.status().message()));
    *e = *c;
  }
}


void AddTirLoopCalls(TirCallTable* t) {
  for (const char* n : {"serial", "parallel", "vectorized", "unroll", "thread_binding"}) t->by_name.emplace(n, &CallLoop);
  t->by_name.emplace("grid", &CallGrid);
}

}  // namespace kiln::script::parser
