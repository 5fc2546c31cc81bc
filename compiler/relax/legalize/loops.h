// Building blocks for the hand-scheduled loop nests of the default CPU kernels (matmul, conv, ...):
// int64 index arithmetic that folds constants as it goes (so the legalized module reads like the
// TVMScript one would write), loops whose body is built from the loop variable, and the split of a
// contiguous loop into a vectorized main part and a serial tail, which is how every kernel here
// handles extents that are not a multiple of the vector width (the TIR pipeline vectorizes only
// constant-extent loops whose body is plain stores, so a guarded tail would stay scalar anyway).
#ifndef KILN_COMPILER_RELAX_LEGALIZE_LOOPS_H_
#define KILN_COMPILER_RELAX_LEGALIZE_LOOPS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/relax/legalize/te.h"

namespace kiln::relax::legalize {

// The function attribute of a PrimFunc whose loops are already scheduled: ScheduleDefaultCPU
// leaves it alone.
inline constexpr char kScheduledAttr[] = "kiln.scheduled";

// ---- int64 index arithmetic (constants from te.h's Int64); constants fold, x + 0, x * 1, x // 1
// return x.
ir::PrimExpr Plus(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr Minus(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr Times(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr FloorDivBy(const ir::PrimExpr& a, int64_t k);
ir::PrimExpr CeilDivBy(const ir::PrimExpr& a, int64_t k);
ir::PrimExpr MinOf(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr MaxOf(const ir::PrimExpr& a, const ir::PrimExpr& b);
// The value of an IntImm, or `fallback` for anything else.
int64_t ConstOr(const ir::PrimExpr& e, int64_t fallback);
bool IsConst(const ir::PrimExpr& e, int64_t v);
// The shape dims as int64 (Relax shapes are int64; an int32 dim is cast).
ir::PrimExpr AsIndex(const ir::PrimExpr& e);

// ---- values
ir::PrimExpr Load(const ir::Buffer& b, std::vector<ir::PrimExpr> indices);
ir::Stmt Store(const ir::Buffer& b, const ir::PrimExpr& value, std::vector<ir::PrimExpr> indices);
// a * b + c as a multiply and an add (or and/or for bool).
ir::PrimExpr MulAdd(const ir::PrimExpr& a, const ir::PrimExpr& b, const ir::PrimExpr& c);
// a * b + c with one rounding (T.fma) for floats, as BLAS micro-kernels compute it: one vfmadd per
// vector instead of a multiply and an add, which halves the arithmetic instructions of the matmul
// and conv inner loops. MulAdd for other dtypes.
ir::PrimExpr FusedMulAdd(const ir::PrimExpr& a, const ir::PrimExpr& b, const ir::PrimExpr& c);
// T.if_then_else(cond, t, f): only the taken branch is evaluated (a guarded load).
ir::PrimExpr IfThenElse(const ir::PrimExpr& cond, const ir::PrimExpr& t, const ir::PrimExpr& f);

// ---- statements
using LoopBody = std::function<ir::Stmt(const ir::PrimExpr&)>;
// for v in <kind>(min, min + extent): body(v). An extent that is the constant 0 gives a no-op,
// which Seq drops.
ir::Stmt Loop(const std::string& name, const ir::PrimExpr& extent, ir::ForKind kind, const LoopBody& body);
ir::Stmt LoopFrom(const std::string& name, const ir::PrimExpr& min, const ir::PrimExpr& extent, ir::ForKind kind,
                  const LoopBody& body);
// for v in [0, n): body(v), as T.vectorized(lanes) loops over the largest multiple of `lanes`
// (inside an outer serial loop) and a serial tail loop for the rest; either part is left out when
// it is statically empty.
ir::Stmt VectorLoop(const std::string& name, const ir::PrimExpr& n, int lanes, const LoopBody& body);
// Statements in order; no-ops (Evaluate(0)) are dropped.
ir::Stmt Seq(std::vector<ir::Stmt> stmts);
ir::Stmt Allocate(const ir::Buffer& buffer, ir::Stmt body);
bool IsNoOp(const ir::Stmt& s);

// ---- functions
// What a kernel generator knows of one tensor operand or result (shape dims may be symbolic).
struct TensorSpec {
  std::vector<ir::PrimExpr> shape;
  ir::DataType dtype;
};
// A compact parameter buffer named `name` and the handle var that binds it.
struct Param {
  ir::Var handle;
  ir::Buffer buffer;
};
Param MakeParam(const std::string& name, std::vector<ir::PrimExpr> shape, ir::DataType dtype);
// A PrimFunc over the given buffer params with the attributes every kernel here carries
// (tirx.noalias, op_pattern) and kiln.scheduled when `scheduled`. No global_symbol: LegalizeOps
// names it in the module.
ir::PrimFunc MakeKernel(const std::vector<Param>& params, ir::Stmt body, OpPatternKind pattern, bool scheduled);

// For the default schedules: `f`, whose body is the root SBlockRealize `root_realize`, with the
// root block's body replaced by `body` and the function's attributes by `attrs`.
ir::PrimFunc WithRootBody(const ir::PrimFunc& f, const ir::SBlockRealizeNode* root_realize, ir::Stmt body,
                          ir::Map<ir::String, ir::ObjectRef> attrs);
// `module` with each PrimFunc replaced by `schedule`'s result where it returns one.
ir::IRModule ScheduleEachPrimFunc(const ir::IRModule& module,
                                  const std::function<std::optional<ir::PrimFunc>(const ir::PrimFunc&)>& schedule);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_LOOPS_H_
