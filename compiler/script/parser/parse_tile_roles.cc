// TVMScript parser, TVM v0.26's warp-role scopes (tvm.tirx.lang.warp_role, a redirect to
// tvm.backend.cuda.lang.warp_role): `with WarpRole(warp_id, 1, regs=48):` and
// `with WarpgroupRole(wg_id, 2, regs=200, increase=True):` guard their body by the role's id and,
// with regs=, first set the warps' register budget. TVM's context managers build exactly
//   if warp_id == 1:
//       T.ptx.setmaxnreg.dec.sync.aligned.u32(48)   # .inc with increase=True
//       <body>
// so that is what kiln reads them into (and prints them back as).
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

void Parser::TIRWarpRole(const doc::Stmt& s, const std::string& name) {
  Span span = SpanOf(s.pos);
  const doc::WithItem& item = s.items[0];
  Span cspan = SpanOf(item.context_expr->pos);
  std::string what = name.substr(name.find('.') + 1);
  if (item.optional_vars) Fail(item.optional_vars->pos, absl::StrCat("with ", what, "(...) binds no value here"));
  CallArgs a;
  a.span = cspan;
  for (const auto& x : item.context_expr->args) a.args.push_back(Eval(x));
  for (const doc::Keyword& kw : item.context_expr->keywords) a.kwargs.emplace_back(kw.arg, Eval(kw.value));
  static const char* const kParams[] = {"id_var", "id_val", "regs", "increase"};
  for (const auto& [k, v] : a.kwargs) {
    if (k != "regs" && k != "increase") Fail(SpanOr(v, cspan), absl::StrCat(what, ": unexpected keyword argument '", k, "'"));
  }
  if (a.args.size() < 2 || a.args.size() > 4) Fail(cspan, absl::StrCat(what, "(id_var, id_val, regs=None, increase=False)"));
  const Value* regs = Arg(a, 2, kParams[2]);
  const Value* increase = Arg(a, 3, kParams[3]);
  const Value& val = a.args[1];
  if (val.is_seq()) {
    // TVM's WarpgroupRole((start, stop)) joins two comparisons with Python's `and`, which a
    // symbolic comparison cannot be converted for.
    Fail(SpanOr(val, cspan), absl::StrCat(what, " with a (start, stop) range: Python's `and` cannot combine the symbolic comparisons"));
  }
  PrimExpr id = ToPrim(a.args[0], SpanOr(a.args[0], cspan));
  tir::Operand rhs = val.kind == K::kInt ? tir::Operand::IntLiteral(val.i) : tir::Operand(ToPrim(val, SpanOr(val, cspan)));
  absl::StatusOr<PrimExpr> cond = tir::BinaryOp(tir::BinaryOpKind::kEQ, id, rhs, cspan);
  if (!cond.ok()) Fail(cspan, std::string(cond.status().message()));
  tir_.BeginScope();
  if (regs && regs->kind != K::kNone) {
    bool inc = increase && increase->kind != K::kNone && ToBool(*increase, SpanOr(*increase, cspan));
    CallArgs ptx;
    ptx.span = cspan;
    ptx.func_span = cspan;
    ptx.args = {*regs};
    Value call = CallPtx(absl::StrCat("setmaxnreg.", inc ? "inc" : "dec", ".sync.aligned.u32"), ptx);
    tir_.Emit(Evaluate(ToPrim(call, cspan), cspan));
  }
  PushScope();
  ParseTIRBody(s.body);
  PopScope();
  Stmt then_case = tir_.EndScope();
  tir_.Emit(IfThenElse(*cond, then_case, Stmt(), span));
}

}  // namespace kiln::script::parser
