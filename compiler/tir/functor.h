// TIR functors: dispatch on node kind to one Visit method per node type, plus the default
// recursive visitor and the copy-on-write mutator that passes build on. They stay in namespace
// kiln::ir with the nodes they visit.
#ifndef KILN_COMPILER_TIR_FUNCTOR_H_
#define KILN_COMPILER_TIR_FUNCTOR_H_

#include <utility>

#include "compiler/ir/tir.h"

namespace kiln::ir {

#define KILN_TIR_EXPR_KINDS(X)                                                                  \
  X(Var) X(SizeVar) X(IntImm) X(FloatImm) X(StringImm) X(Cast) X(Add) X(Sub) X(Mul) X(Div)      \
  X(Mod) X(FloorDiv) X(FloorMod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or) \
  X(Not) X(Select) X(BufferLoad) X(Ramp) X(Broadcast) X(Shuffle) X(Let) X(Call)

#define KILN_TIR_STMT_KINDS(X)                                                                  \
  X(LetStmt) X(AttrStmt) X(AssertStmt) X(BufferStore) X(For) X(While) X(Break) X(Continue)      \
  X(IfThenElse) X(SeqStmt) X(Evaluate) X(AllocBuffer) X(DeclBuffer) X(SBlock) X(SBlockRealize)      \
  X(ScopeIdDefStmt) X(TilePrimitiveCall)

template <typename FType>
class ExprFunctor;

// R VisitExpr(const PrimExpr&, Args...) dispatching to VisitExpr_(const XNode*, Args...).
template <typename R, typename... Args>
class ExprFunctor<R(const PrimExpr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  virtual R VisitExpr(const PrimExpr& e, Args... args) {
    switch (e->kind()) {
#define KILN_CASE(T) \
  case NodeKind::k##T: return VisitExpr_(static_cast<const T##Node*>(e.get()), std::forward<Args>(args)...);
      KILN_TIR_EXPR_KINDS(KILN_CASE)
#undef KILN_CASE
      default: return VisitExprDefault_(e.get(), std::forward<Args>(args)...);
    }
  }
#define KILN_DECL(T) \
  virtual R VisitExpr_(const T##Node* op, Args... args) { return VisitExprDefault_(op, std::forward<Args>(args)...); }
  KILN_TIR_EXPR_KINDS(KILN_DECL)
#undef KILN_DECL
  // Called for node kinds a subclass does not handle.
  virtual R VisitExprDefault_(const Object* op, Args...) = 0;
};

template <typename FType>
class StmtFunctor;

template <typename R, typename... Args>
class StmtFunctor<R(const Stmt&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  virtual R VisitStmt(const Stmt& s, Args... args) {
    switch (s->kind()) {
#define KILN_CASE(T) \
  case NodeKind::k##T: return VisitStmt_(static_cast<const T##Node*>(s.get()), std::forward<Args>(args)...);
      KILN_TIR_STMT_KINDS(KILN_CASE)
#undef KILN_CASE
      default: return VisitStmtDefault_(s.get(), std::forward<Args>(args)...);
    }
  }
#define KILN_DECL(T) \
  virtual R VisitStmt_(const T##Node* op, Args... args) { return VisitStmtDefault_(op, std::forward<Args>(args)...); }
  KILN_TIR_STMT_KINDS(KILN_DECL)
#undef KILN_DECL
  virtual R VisitStmtDefault_(const Object* op, Args...) = 0;
};

// Visits every expression and statement of a TIR tree (not into buffer definitions by default).
class StmtExprVisitor : public ExprFunctor<void(const PrimExpr&)>, public StmtFunctor<void(const Stmt&)> {
 public:
  using ExprFunctor::VisitExpr;
  using StmtFunctor::VisitStmt;
  void VisitExpr(const PrimExpr& e) override;
  void VisitStmt(const Stmt& s) override;

 protected:
  using ExprFunctor::VisitExpr_;
  using StmtFunctor::VisitStmt_;
  void VisitExprDefault_(const Object*) override {}
  void VisitStmtDefault_(const Object*) override {}
  void VisitExpr_(const CastNode* op) override;
  void VisitExpr_(const AddNode* op) override;
  void VisitExpr_(const SubNode* op) override;
  void VisitExpr_(const MulNode* op) override;
  void VisitExpr_(const DivNode* op) override;
  void VisitExpr_(const ModNode* op) override;
  void VisitExpr_(const FloorDivNode* op) override;
  void VisitExpr_(const FloorModNode* op) override;
  void VisitExpr_(const MinNode* op) override;
  void VisitExpr_(const MaxNode* op) override;
  void VisitExpr_(const EQNode* op) override;
  void VisitExpr_(const NENode* op) override;
  void VisitExpr_(const LTNode* op) override;
  void VisitExpr_(const LENode* op) override;
  void VisitExpr_(const GTNode* op) override;
  void VisitExpr_(const GENode* op) override;
  void VisitExpr_(const AndNode* op) override;
  void VisitExpr_(const OrNode* op) override;
  void VisitExpr_(const NotNode* op) override;
  void VisitExpr_(const SelectNode* op) override;
  void VisitExpr_(const BufferLoadNode* op) override;
  void VisitExpr_(const RampNode* op) override;
  void VisitExpr_(const BroadcastNode* op) override;
  void VisitExpr_(const ShuffleNode* op) override;
  void VisitExpr_(const LetNode* op) override;
  void VisitExpr_(const CallNode* op) override;

  void VisitStmt_(const LetStmtNode* op) override;
  void VisitStmt_(const AttrStmtNode* op) override;
  void VisitStmt_(const AssertStmtNode* op) override;
  void VisitStmt_(const BufferStoreNode* op) override;
  void VisitStmt_(const ForNode* op) override;
  void VisitStmt_(const WhileNode* op) override;
  void VisitStmt_(const IfThenElseNode* op) override;
  void VisitStmt_(const SeqStmtNode* op) override;
  void VisitStmt_(const EvaluateNode* op) override;
  void VisitStmt_(const AllocBufferNode* op) override;
  void VisitStmt_(const DeclBufferNode* op) override;
  void VisitStmt_(const SBlockNode* op) override;
  void VisitStmt_(const SBlockRealizeNode* op) override;
  void VisitStmt_(const ScopeIdDefStmtNode* op) override;
  void VisitStmt_(const TilePrimitiveCallNode* op) override;

  // Hook for the buffer definitions met at AllocBuffer/DeclBuffer/SBlock alloc/match.
  virtual void VisitBufferDef(const Buffer& buffer) {}
};

// Rebuilds a TIR tree, copying a node only when one of its children changed.
class StmtExprMutator : public ExprFunctor<PrimExpr(const PrimExpr&)>,
                        public StmtFunctor<Stmt(const Stmt&)> {
 public:
  using ExprFunctor::VisitExpr;
  using StmtFunctor::VisitStmt;
  PrimExpr VisitExpr(const PrimExpr& e) override { return ExprFunctor::VisitExpr(e); }
  Stmt VisitStmt(const Stmt& s) override { return StmtFunctor::VisitStmt(s); }

 protected:
  using ExprFunctor::VisitExpr_;
  using StmtFunctor::VisitStmt_;
  PrimExpr VisitExprDefault_(const Object* op) override;
  Stmt VisitStmtDefault_(const Object* op) override;

  PrimExpr VisitExpr_(const CastNode* op) override;
  PrimExpr VisitExpr_(const AddNode* op) override;
  PrimExpr VisitExpr_(const SubNode* op) override;
  PrimExpr VisitExpr_(const MulNode* op) override;
  PrimExpr VisitExpr_(const DivNode* op) override;
  PrimExpr VisitExpr_(const ModNode* op) override;
  PrimExpr VisitExpr_(const FloorDivNode* op) override;
  PrimExpr VisitExpr_(const FloorModNode* op) override;
  PrimExpr VisitExpr_(const MinNode* op) override;
  PrimExpr VisitExpr_(const MaxNode* op) override;
  PrimExpr VisitExpr_(const EQNode* op) override;
  PrimExpr VisitExpr_(const NENode* op) override;
  PrimExpr VisitExpr_(const LTNode* op) override;
  PrimExpr VisitExpr_(const LENode* op) override;
  PrimExpr VisitExpr_(const GTNode* op) override;
  PrimExpr VisitExpr_(const GENode* op) override;
  PrimExpr VisitExpr_(const AndNode* op) override;
  PrimExpr VisitExpr_(const OrNode* op) override;
  PrimExpr VisitExpr_(const NotNode* op) override;
  PrimExpr VisitExpr_(const SelectNode* op) override;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override;
  PrimExpr VisitExpr_(const RampNode* op) override;
  PrimExpr VisitExpr_(const BroadcastNode* op) override;
  PrimExpr VisitExpr_(const ShuffleNode* op) override;
  PrimExpr VisitExpr_(const LetNode* op) override;
  PrimExpr VisitExpr_(const CallNode* op) override;

  Stmt VisitStmt_(const LetStmtNode* op) override;
  Stmt VisitStmt_(const AttrStmtNode* op) override;
  Stmt VisitStmt_(const AssertStmtNode* op) override;
  Stmt VisitStmt_(const BufferStoreNode* op) override;
  Stmt VisitStmt_(const ForNode* op) override;
  Stmt VisitStmt_(const WhileNode* op) override;
  Stmt VisitStmt_(const IfThenElseNode* op) override;
  Stmt VisitStmt_(const SeqStmtNode* op) override;
  Stmt VisitStmt_(const EvaluateNode* op) override;
  Stmt VisitStmt_(const AllocBufferNode* op) override;
  Stmt VisitStmt_(const DeclBufferNode* op) override;
  Stmt VisitStmt_(const SBlockNode* op) override;
  Stmt VisitStmt_(const SBlockRealizeNode* op) override;
  Stmt VisitStmt_(const ScopeIdDefStmtNode* op) override;
  Stmt VisitStmt_(const TilePrimitiveCallNode* op) override;

  // Maps every expression of an array; returns the same array if nothing changed.
  Array<PrimExpr> VisitExprs(const Array<PrimExpr>& arr);
  Range VisitRange(const Range& r);
  BufferRegion VisitBufferRegion(const BufferRegion& r);
};

// Returns a ref of the node's type for `op` (which must be held by some ref already).
template <typename Ref, typename Node>
Ref GetRef(const Node* op) {
  // Bump the count: `op` is alive, owned by at least one other reference.
  return Ref(ObjectPtr<Object>(const_cast<Node*>(op)));
}

}  // namespace kiln::ir

#endif  // KILN_COMPILER_TIR_FUNCTOR_H_
