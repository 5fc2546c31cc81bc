// T.compute (issue 17 F3, the TVMScript parser RFC's "TE compute in TIR" sugar): one call that
// stands for a loop nest around one SBlock, expanded while parsing, so the IR (and the printed
// text) is the plain TVMScript a user would write by hand:
//
//   T.compute(C, lambda i, j: A[i, j] + B[i, j])         # into an existing buffer
//   D = T.compute((M, N), lambda i, j: A[i, j] * 2)       # a new buffer, named by the assignment
//   T.compute(C, lambda i, j, k: A[i, k] * B[k, j], reduce=(K,))   # sum over k, C = 0 first
//
// becomes `for i, j[, k] in T.grid(...)` over one `with T.sblock("C")` whose axes are
// `T.axis.remap("SS[R]", [i, j[, k]])` (named v_i, v_j, v_k as TVM's create_prim_func names them),
// with `with T.init(): C[v_i, v_j] = <identity>` for a reduction and the update
// `C[v_i, v_j] = C[v_i, v_j] + value` (combiner= "sum" | "prod" | "max" | "min", init= overrides
// the identity), and T.reads / T.writes as te.create_prim_func declares them. The lambda takes one
// parameter per spatial then reduction axis; a lambda of one parameter (two with reduce=) gets the
// indices as a tuple instead, so that rank-polymorphic code can write `lambda idx: A[*idx]`.
// name= names the block (default: the buffer's name), dtype= the new buffer's dtype (default: the
// value's).
//
// Everything is evaluated before any builder frame opens, so an error leaves no frame behind.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

struct Combiner {
  tir::BinaryOpKind op;
  const char* identity;  // "0", "1", or the LimitValue name
};

Combiner CombinerOf(Parser& p, const Value* v, const Span& span) {
  std::string name = v ? p.ToStr(*v, SpanOr(*v, span)) : "sum";
  if (name == "sum") return {tir::BinaryOpKind::kAdd, "0"};
  if (name == "prod") return {tir::BinaryOpKind::kMul, "1"};
  if (name == "max") return {tir::BinaryOpKind::kMax, "min_value"};
  if (name == "min") return {tir::BinaryOpKind::kMin, "max_value"};
  p.Fail(v ? SpanOr(*v, span) : span, absl::StrCat("T.compute: combiner is \"sum\", \"prod\", \"max\" or \"min\", not \"",
                                                   name, "\""));
}

// The buffers an expression loads, each with the index tuples it is loaded at, in first-use order.
class LoadCollector : public StmtExprVisitor {
 public:
  std::vector<std::pair<Buffer, std::vector<Array<PrimExpr>>>> loads;

 protected:
  using StmtExprVisitor::VisitExpr_;
  void VisitExpr_(const BufferLoadNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    auto it = std::find_if(loads.begin(), loads.end(), [&](const auto& l) { return l.first.get() == op->buffer.get(); });
    if (it == loads.end()) it = loads.insert(loads.end(), {op->buffer, {}});
    it->second.push_back(op->indices);
  }
};

class HasLoad : public StmtExprVisitor {
 public:
  bool found = false;

 protected:
  using StmtExprVisitor::VisitExpr_;
  void VisitExpr_(const BufferLoadNode*) override { found = true; }
};

// The block's read regions, as TVM's region detection approximates them: per buffer (but the one
// a reduction updates), a point where every load uses one load-free index in a dimension, the
// whole dimension otherwise.
Array<BufferRegion> ReadRegions(const PrimExpr& value, const BufferNode* skip) {
  LoadCollector c;
  c.VisitExpr(value);
  Array<BufferRegion> out;
  for (const auto& [buffer, uses] : c.loads) {
    if (buffer.get() == skip) continue;
    Array<Range> region;
    size_t rank = buffer->shape.size();
    bool indexed = std::all_of(uses.begin(), uses.end(), [&](const Array<PrimExpr>& u) { return u.size() == rank; });
    for (size_t d = 0; d < rank; ++d) {
      bool point = indexed;
      if (point) {
        HasLoad h;
        h.VisitExpr(uses[0][d]);
        point = !h.found;
      }
      for (size_t u = 1; point && u < uses.size(); ++u) point = StructuralEqual(uses[0][d], uses[u][d]);
      region.push_back(point ? Range(uses[0][d], IntImm(uses[0][d].dtype(), 1))
                             : Range(IntImm(buffer->shape[d].dtype(), 0), buffer->shape[d]));
    }
    out.push_back(BufferRegion(buffer, region));
  }
  return out;
}

// The extents a shape-like value lists: a tuple or list of them, or one extent.
std::vector<PrimExpr> Extents(Parser& p, const Value& v, const Span& span) {
  std::vector<PrimExpr> out;
  if (v.is_seq()) {
    for (const Value& x : v.items) out.push_back(p.ToPrim(x, SpanOr(x, span)));
  } else {
    out.push_back(p.ToPrim(v, SpanOr(v, span)));
  }
  for (const PrimExpr& e : out) {
    if (!e.dtype().is_int() || e.dtype().lanes() != 1) {
      p.Fail(SpanOr(v, span), absl::StrCat("T.compute: an extent is an integer, not ", e.dtype().ToString()));
    }
  }
  return out;
}

// T.compute(out, fcompute, *, reduce=(), combiner="sum", init=None, name=None, dtype=None).
Value CallCompute(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.NeedBody();
  c.Need(2, 2);
  for (const auto& [key, v] : a.kwargs) {
    if (key != "reduce" && key != "combiner" && key != "init" && key != "name" && key != "dtype") {
      p.Fail(span, absl::StrCat("T.compute: unexpected argument '", key, "'"));
    }
  }
  // A keyword given as None is a keyword not given (the signature's defaults).
  auto given = [&](const char* key) {
    const Value* v = Kwarg(a, key);
    return v && v->kind != K::kNone ? v : nullptr;
  };
  const Value& out = a.args[0];
  const Value& fn = a.args[1];
  if (fn.kind != K::kLambda) p.Fail(SpanOr(fn, span), "T.compute takes a lambda over the output's indices");

  // The output: an existing buffer, or the shape of a new one.
  Buffer dest;
  std::vector<PrimExpr> spatial;
  if (out.kind == K::kBuffer) {
    dest = Downcast<Buffer>(out.obj);
    if (given("dtype")) p.Fail(span, "T.compute: dtype= is for a new buffer; this one is " + dest->dtype.ToString());
    for (const PrimExpr& e : dest->shape) spatial.push_back(e);
  } else {
    spatial = Extents(p, out, span);
  }
  std::vector<PrimExpr> reduce;
  if (const Value* r = given("reduce")) reduce = Extents(p, *r, span);
  const Value* combiner_arg = given("combiner");
  const Value* init_arg = given("init");
  if (reduce.empty() && (combiner_arg || init_arg)) p.Fail(span, "T.compute: combiner= and init= need reduce=");
  Combiner comb = CombinerOf(p, combiner_arg, span);
  std::string out_name = dest.defined() ? dest->name : c.FreshName();
  std::string block_name = given("name") ? p.ToStr(*given("name"), span) : out_name;

  // Lambda parameters: one per axis, or the index tuples (spatial[, reduce]).
  const doc::Expr& lam = *fn.lambda;
  size_t n_axes = spatial.size() + reduce.size();
  size_t n_params = lam.lambda_args.size();
  bool packed = n_params != n_axes && n_params == (reduce.empty() ? 1u : 2u);
  if (n_params != n_axes && !packed) {
    p.Fail(SpanOr(fn, span), absl::StrCat("the lambda of T.compute takes ", n_axes, " parameters (", spatial.size(),
                                          " spatial, ", reduce.size(), " reduction), or the indices as ",
                                          reduce.empty() ? "one tuple" : "two tuples", "; it takes ", n_params));
  }
  std::vector<std::string> names;
  for (size_t k = 0; k < n_axes; ++k) {
    if (!packed) {
      names.push_back(lam.lambda_args[k]);
    } else {
      bool spatial_axis = k < spatial.size();
      const std::string& base = lam.lambda_args[spatial_axis ? 0 : 1];
      size_t count = spatial_axis ? spatial.size() : reduce.size();
      names.push_back(count == 1 ? base : absl::StrCat(base, "_", spatial_axis ? k : k - spatial.size()));
    }
  }
  std::vector<Var> loop_vars, block_vars;
  Array<IterVar> iter_vars;
  Array<PrimExpr> iter_values;
  for (size_t k = 0; k < n_axes; ++k) {
    const PrimExpr& extent = k < spatial.size() ? spatial[k] : reduce[k - spatial.size()];
    Var lv(names[k], extent.dtype(), span);
    Var bv(absl::StrCat("v_", names[k]), extent.dtype(), span);
    loop_vars.push_back(lv);
    block_vars.push_back(bv);
    iter_vars.push_back(IterVar(Range(IntImm(extent.dtype(), 0), extent), bv,
                                k < spatial.size() ? IterVarType::kDataPar : IterVarType::kCommReduce, "", span));
    iter_values.push_back(lv);
  }

  // The value, with the lambda's parameters bound to the block's axes.
  Value body;
  p.PushScope();
  try {
    if (!packed) {
      for (size_t k = 0; k < n_axes; ++k) p.Define(names[k], Value::Obj(K::kPrim, block_vars[k]));
    } else {
      auto tuple = [&](size_t from, size_t to) {
        if (to - from == 1) return Value::Obj(K::kPrim, block_vars[from]);  // a lone index stars as itself
        std::vector<Value> items;
        for (size_t k = from; k < to; ++k) items.push_back(Value::Obj(K::kPrim, block_vars[k]));
        return Value::Seq(K::kTuple, std::move(items));
      };
      p.Define(lam.lambda_args[0], tuple(0, spatial.size()));
      if (!reduce.empty()) p.Define(lam.lambda_args[1], tuple(spatial.size(), n_axes));
    }
    body = p.Eval(lam.value);
  } catch (...) {
    p.PopScope();
    throw;
  }
  p.PopScope();
  Span value_span = SpanOr(body, p.SpanOf(lam.value->pos));
  tir::Operand value = ToOperand(p, body, value_span);

  if (!dest.defined()) {
    DataType dtype;
    if (const Value* d = given("dtype")) dtype = p.ToDType(*d, SpanOr(*d, span));
    else dtype = value.Materialize().dtype();
    CallArgs ba;
    ba.span = ba.func_span = span;
    std::vector<Value> dims;
    for (const PrimExpr& e : spatial) dims.push_back(Value::Obj(K::kPrim, e));
    ba.args = {Value::Seq(K::kTuple, std::move(dims)), Value::Str(dtype.ToString())};
    dest = p.MakeBuffer(out_name, ba, 0, "global");
  }
  Array<PrimExpr> out_idx(block_vars.begin(), block_vars.begin() + spatial.size());
  auto as_dest_dtype = [&](const tir::Operand& v, const Span& at) -> PrimExpr {
    if (v.is_literal()) {
      absl::StatusOr<PrimExpr> k = tir::MakeConst(dest->dtype, v, at);
      if (!k.ok()) p.Fail(at, absl::StrCat("T.compute: ", k.status().message()));
      return *k;
    }
    if (v.expr().dtype() != dest->dtype) {
      p.Fail(at, absl::StrCat("T.compute: the value is ", v.expr().dtype().ToString(), " but ", dest->name, " is ",
                              dest->dtype.ToString(), " (cast it with T.Cast)"));
    }
    return v.expr();
  };
  PrimExpr stored;
  Stmt init;
  if (reduce.empty()) {
    stored = as_dest_dtype(value, value_span);
  } else {
    PrimExpr start;
    if (init_arg) {
      start = as_dest_dtype(ToOperand(p, *init_arg, span), SpanOr(*init_arg, span));
    } else if (comb.identity[0] == '0' || comb.identity[0] == '1') {
      start = as_dest_dtype(tir::Operand::IntLiteral(comb.identity[0] - '0', span), span);
    } else {
      start = c.OkPrim(tir::LimitValue(comb.identity, dest->dtype, span));
    }
    init = BufferStore(dest, start, out_idx, span);
    stored = c.OkPrim(tir::BinaryOp(comb.op, tir::Operand(BufferLoad(dest, out_idx, span)),
                                    tir::Operand(as_dest_dtype(value, value_span)), span));
  }

  // Nothing below fails: the frames open and close in one go.
  p.tir_.BeginScope();
  p.tir_.BeginBlock(block_name);
  builder::BlockData* blk = p.tir_.block();
  blk->iter_vars = iter_vars;
  blk->iter_values = iter_values;
  blk->init = init;
  blk->reads = ReadRegions(stored, reduce.empty() ? nullptr : dest.get());
  Array<Range> point;
  for (const PrimExpr& i : out_idx) point.push_back(Range(i, IntImm(i.dtype(), 1)));
  blk->writes = {BufferRegion(dest, point)};
  blk->reads_set = blk->writes_set = true;
  p.tir_.Emit(BufferStore(dest, stored, out_idx, span));
  p.tir_.EndBlock(span);
  Stmt nest = p.tir_.EndScope();
  for (size_t k = n_axes; k-- > 0;) {
    PrimExpr extent = k < spatial.size() ? spatial[k] : reduce[k - spatial.size()];
    nest = For(loop_vars[k], IntImm(extent.dtype(), 0), extent, ForKind::kSerial, nest, IterVar(), {}, span);
  }
  if (out.kind == K::kBuffer) {
    p.tir_.Emit(nest);
    return Value::None();
  }
  // A new buffer: allocated by the enclosing block or the s_tir function's root block, as
  // te.create_prim_func allocates intermediates; otherwise over the rest of the body.
  if (builder::BlockData* outer = p.tir_.block()) {
    outer->alloc_buffers.push_back(dest);
  } else if (p.tir_.func()->s_tir) {
    p.tir_.func()->root_alloc_buffers.push_back(dest);
  } else {
    p.tir_.BeginImplicit([dest, span](Stmt rest) { return AllocBuffer(dest, rest, {}, span); });
  }
  p.tir_.Emit(nest);
  return Value::Obj(K::kBuffer, dest);
}

}  // namespace

void AddTirComputeCalls(TirCallTable* t) { t->by_name.emplace("compute", &CallCompute); }

}  // namespace kiln::script::parser
