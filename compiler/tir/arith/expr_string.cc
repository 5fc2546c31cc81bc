// ExprToString: an infix rendering of TIR expressions for messages and tests (not TVMScript; the
// printer in compiler/script/printer is the real one, but the passes must not depend on it).
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"

namespace kiln::arith {
namespace {

using namespace ir;  // NOLINT

class Printer : public ExprFunctor<std::string(const PrimExpr&)> {
 public:
  std::string VisitExprDefault_(const Object* op) override { return op->type_key(); }
  std::string VisitExpr_(const VarNode* op) override { return op->name; }
  std::string VisitExpr_(const SizeVarNode* op) override { return op->name; }
  std::string VisitExpr_(const IntImmNode* op) override {
    if (op->dtype.is_bool()) return op->value ? "True" : "False";
    if (op->dtype == DataType::Int(32)) return absl::StrCat(op->value);
    return absl::StrCat(op->dtype.ToString(), "(", op->value, ")");
  }
  std::string VisitExpr_(const FloatImmNode* op) override {
    std::ostringstream os;
    os << op->value;
    if (op->dtype == DataType::Float(32)) return os.str();
    return absl::StrCat(op->dtype.ToString(), "(", os.str(), ")");
  }
  std::string VisitExpr_(const StringImmNode* op) override { return absl::StrCat("\"", op->value, "\""); }
  std::string VisitExpr_(const CastNode* op) override {
    return absl::StrCat(op->dtype.ToString(), "(", VisitExpr(op->value), ")");
  }
  // Precedence of infix forms (higher binds tighter); calls and atoms are 6.
  static int Prec(const PrimExpr& e) {
    if (e.as<OrNode>()) return 1;
    if (e.as<AndNode>()) return 2;
    if (e.as<EQNode>() || e.as<NENode>() || e.as<LTNode>() || e.as<LENode>() || e.as<GTNode>() || e.as<GENode>()) return 3;
    if (e.as<AddNode>() || e.as<SubNode>()) return 4;
    if (e.as<MulNode>()) return 5;
    if (e.as<NotNode>()) return 5;
    return 6;
  }
  // Left-associative: the right operand needs parentheses at equal precedence.
  std::string Infix(const BinaryNode* op, const char* sym, int prec) {
    std::string a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (Prec(op->a) < prec) a = absl::StrCat("(", a, ")");
    if (Prec(op->b) <= prec) b = absl::StrCat("(", b, ")");
    return absl::StrCat(a, " ", sym, " ", b);
  }
  std::string Fn(const char* name, const BinaryNode* op) {
    return absl::StrCat(name, "(", VisitExpr(op->a), ", ", VisitExpr(op->b), ")");
  }
  std::string VisitExpr_(const AddNode* op) override { return Infix(op, "+", 4); }
  std::string VisitExpr_(const SubNode* op) override { return Infix(op, "-", 4); }
  std::string VisitExpr_(const MulNode* op) override { return Infix(op, "*", 5); }
  std::string VisitExpr_(const DivNode* op) override { return Fn("truncdiv", op); }
  std::string VisitExpr_(const ModNode* op) override { return Fn("truncmod", op); }
  std::string VisitExpr_(const FloorDivNode* op) override { return Fn("floordiv", op); }
  std::string VisitExpr_(const FloorModNode* op) override { return Fn("floormod", op); }
  std::string VisitExpr_(const MinNode* op) override { return Fn("min", op); }
  std::string VisitExpr_(const MaxNode* op) override { return Fn("max", op); }
  std::string VisitExpr_(const EQNode* op) override { return Infix(op, "==", 3); }
  std::string VisitExpr_(const NENode* op) override { return Infix(op, "!=", 3); }
  std::string VisitExpr_(const LTNode* op) override { return Infix(op, "<", 3); }
  std::string VisitExpr_(const LENode* op) override { return Infix(op, "<=", 3); }
  std::string VisitExpr_(const GTNode* op) override { return Infix(op, ">", 3); }
  std::string VisitExpr_(const GENode* op) override { return Infix(op, ">=", 3); }
  std::string VisitExpr_(const AndNode* op) override { return Infix(op, "and", 2); }
  std::string VisitExpr_(const OrNode* op) override { return Infix(op, "or", 1); }
  std::string VisitExpr_(const NotNode* op) override { std::string a = VisitExpr(op->a);
    return Prec(op->a) < 6 ? absl::StrCat("not (", a, ")") : absl::StrCat("not ", a); }
  std::string VisitExpr_(const SelectNode* op) override {
    return absl::StrCat("select(", VisitExpr(op->condition), ", ", VisitExpr(op->true_value), ", ",
                        VisitExpr(op->false_value), ")");
  }
  std::string VisitExpr_(const BufferLoadNode* op) override {
    std::vector<std::string> idx;
    for (const PrimExpr& i : op->indices) idx.push_back(VisitExpr(i));
    return absl::StrCat(op->buffer->name, "[", absl::StrJoin(idx, ", "), "]");
  }
  std::string VisitExpr_(const RampNode* op) override {
    return absl::StrCat("ramp(", VisitExpr(op->base), ", ", VisitExpr(op->stride), ", ", op->lanes, ")");
  }
  std::string VisitExpr_(const BroadcastNode* op) override {
    return absl::StrCat("broadcast(", VisitExpr(op->value), ", ", op->lanes, ")");
  }
  std::string VisitExpr_(const LetNode* op) override {
    return absl::StrCat("let(", op->var->name, " = ", VisitExpr(op->value), ", ", VisitExpr(op->body), ")");
  }
  std::string VisitExpr_(const CallNode* op) override {
    std::vector<std::string> args;
    for (const PrimExpr& a : op->args) args.push_back(VisitExpr(a));
    std::string name;
    if (const auto* o = op->op.as<OpNode>()) name = o->name;
    if (const auto* g = op->op.as<GlobalVarNode>()) name = g->name;
    if (name.rfind("tirx.", 0) == 0) name = name.substr(5);
    return absl::StrCat(name, "(", absl::StrJoin(args, ", "), ")");
  }
};

}  // namespace

std::string ExprToString(const PrimExpr& e) {
  if (!e.defined()) return "(undefined)";
  return Printer().VisitExpr(e);
}

}  // namespace kiln::arith
