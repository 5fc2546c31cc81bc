// TVMScript parser, module level and the Python-level expression evaluator. The dispatch on the
// `T.` / `R.` / `I.` namespaces follows the architecture spec: an expression evaluates to a Value
// (a Python number, string or container, an IR object, or the name of a TVMScript function), and
// calls of TVMScript functions go to CallT / CallR / CallI.
#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <vector>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/parser/parser_impl.h"
#include "compiler/tir/op/arith.h"
#include "compiler/tir/op/op.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;

const char* KindName(Value::Kind k) {
  switch (k) {
    case K::kNone: return "None";
    case K::kBool: return "bool";
    case K::kInt: return "int";
    case K::kFloat: return "float";
    case K::kStr: return "str";
    case K::kPrim: return "PrimExpr";
    case K::kRelax: return "Relax expression";
    case K::kType: return "type";
    case K::kBuffer: return "Buffer";
    case K::kRegion: return "buffer region";
    case K::kTuple: return "tuple";
    case K::kList: return "list";
    case K::kDict: return "dict";
    case K::kName: return "function";
    case K::kSlice: return "slice";
    case K::kLoops: return "loop iterator";
    case K::kIterVar: return "IterVar";
    case K::kModule: return "module";
    case K::kPoison: return "invalid value";
    case K::kLambda: return "lambda";
    case K::kReducer: return "CommReducer";
    case K::kLayout: return "layout";
    case K::kLayoutSpec: return "layout spec";
    case K::kAxisTerms: return "axis-bound value";
    case K::kMacro: return "macro";
  }
  return "value";
}

Span Parser::SpanOf(const doc::Pos& p) const {
  Span s;
  s.source = filename_;
  s.line = p.line;
  s.column = p.col;
  s.end_line = p.end_line;
  s.end_column = p.end_col;
  return s;
}

void Parser::Fail(const Span& span, std::string message) const { throw ParseError{span, std::move(message)}; }

void Parser::Report(const ParseError& e) {
  if (e.silent) return;
  ++error_count_;
  if (diags_) diags_->Error(e.span, e.message);
}

void Parser::Warn(const Span& span, std::string message) {
  if (diags_) diags_->Warning(span, std::move(message));
}

const Value* Parser::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

void Parser::Poison(const doc::ExprPtr& target) {
  if (!target || scopes_.empty()) return;
  if (target->kind == doc::ExprKind::kName) {
    Define(target->name, Value::Of(K::kPoison));
  } else if (target->kind == doc::ExprKind::kTuple || target->kind == doc::ExprKind::kList) {
    for (const auto& e : target->elts) Poison(e);
  }
}

namespace {

// The names a target binds, in order, with repeats (Starred targets bind their inner name).
void TargetNames(const doc::Expr& e, std::vector<std::string>* out) {
  if (e.kind == doc::ExprKind::kName) {
    out->push_back(e.name);
  } else if (e.kind == doc::ExprKind::kTuple || e.kind == doc::ExprKind::kList) {
    for (const auto& x : e.elts) if (x) TargetNames(*x, out);
  } else if (e.kind == doc::ExprKind::kStarred && e.value) {
    TargetNames(*e.value, out);
  }
}

}  // namespace

void Parser::CheckDistinctTargets(const doc::Expr& target) const {
  std::vector<std::string> names;
  TargetNames(target, &names);
  std::set<std::string> seen;
  for (const std::string& n : names) {
    if (!seen.insert(n).second) Fail(target.pos, absl::StrCat("'", n, "' is assigned twice in one assignment"));
  }
}

// ------------------------------------------------------------------ conversions

PrimExpr Parser::ToPrim(const Value& v, const Span& span) const {
  switch (v.kind) {
    case K::kInt: return tir::Operand::IntLiteral(v.i).Materialize();
    case K::kFloat: return FloatImm(DataType::Float(32), v.f);
    case K::kBool: return IntImm(DataType::Bool(), v.b);
    case K::kPrim: return Downcast<PrimExpr>(v.obj);
    case K::kIterVar: return v.obj.as<IterVarNode>()->var;
    case K::kRegion:
      // A[0:8] read as a vector load; a region with dimensions left out (A[0] of a 3-d buffer)
      // has no value.
      if (v.items.empty()) {
        const auto* r = v.obj.as<BufferRegionNode>();
        Fail(span, absl::StrCat("buffer ", r->buffer->name, " is ", r->buffer->shape.size(),
                                "-dimensional: indexed with fewer indices it is a buffer region, not a value"));
      }
      return Downcast<PrimExpr>(v.items[0].obj);
    case K::kRelax:
      if (const auto* pv = v.obj.as<rx::PrimValueNode>()) return pv->value;
      break;
    case K::kStr: return StringImm(v.s);
    case K::kPoison: throw ParseError{span, "", true};
    default: break;
  }
  Fail(span, absl::StrCat("expected a PrimExpr, got a ", KindName(v.kind)));
}

DataType Parser::ToDType(const Value& v, const Span& span) const {
  std::string s;
  if (v.kind == K::kStr) {
    s = v.s;
  } else if (v.kind == K::kName && absl::StartsWith(v.s, "T.")) {
    s = CanonicalDTypeName(v.s.substr(2));
  } else if (v.kind == K::kRelax && v.obj.as<rx::DataTypeImmNode>()) {
    return v.obj.as<rx::DataTypeImmNode>()->value;
  } else if (v.kind == K::kType && v.obj.as<PrimTypeNode>()) {
    return v.obj.as<PrimTypeNode>()->dtype;
  } else if (v.kind == K::kType && v.obj.as<PointerTypeNode>()) {
    return DataType::Handle();  // a call returning a typed pointer is a handle in the IR
  } else {
    Fail(span, absl::StrCat("expected a dtype, got a ", KindName(v.kind)));
  }
  if (s == "handle") return DataType::Handle();
  if (s == "void") return DataType::Void();
  absl::StatusOr<DataType> t = DataType::Parse(s);
  if (!t.ok()) Fail(span, absl::StrCat("unknown dtype \"", s, "\""));
  return *t;
}

int64_t Parser::ToInt(const Value& v, const Span& span) const {
  if (v.kind == K::kInt) return v.i;
  if (v.kind == K::kBool) return v.b;
  if (v.kind == K::kPrim) {
    if (const auto* imm = v.obj.as<IntImmNode>()) return imm->value;
  }
  if (v.kind == K::kPoison) throw ParseError{span, "", true};
  Fail(span, absl::StrCat("expected an integer constant, got a ", KindName(v.kind)));
}

std::string Parser::ToStr(const Value& v, const Span& span) const {
  if (v.kind == K::kStr) return v.s;
  if (v.kind == K::kPrim) {
    if (const auto* s = v.obj.as<StringImmNode>()) return s->value;
  }
  if (v.kind == K::kRelax) {
    if (const auto* s = v.obj.as<rx::StringImmNode>()) return s->value;
  }
  Fail(span, absl::StrCat("expected a string, got a ", KindName(v.kind)));
}

bool Parser::ToBool(const Value& v, const Span& span) const {
  if (v.kind == K::kBool) return v.b;
  if (v.kind == K::kInt) return v.i != 0;
  if (v.kind == K::kPrim) {
    if (const auto* imm = v.obj.as<IntImmNode>()) return imm->value != 0;
  }
  Fail(span, absl::StrCat("expected a constant bool, got a ", KindName(v.kind)));
}

std::vector<Value> Parser::ToSeq(const Value& v, const Span& span) const {
  if (v.is_seq()) return v.items;
  if (v.kind == K::kRelax) {
    if (const auto* s = v.obj.as<rx::ShapeExprNode>()) {
      std::vector<Value> out;
      for (const PrimExpr& e : s->values) out.push_back(Value::Obj(K::kPrim, e));
      return out;
    }
  }
  Fail(span, absl::StrCat("expected a tuple or list, got a ", KindName(v.kind)));
}

Array<PrimExpr> Parser::ToPrimArray(const Value& v, const Span& span) const {
  Array<PrimExpr> out;
  if (!v.is_seq() && v.kind != K::kRelax) {
    out.push_back(ToPrim(v, span));
    return out;
  }
  for (const Value& x : ToSeq(v, span)) out.push_back(ToPrim(x, x.span.defined() ? x.span : span));
  return out;
}

ObjectRef Parser::ToAttrValue(const Value& v, const Span& span) const {
  switch (v.kind) {
    case K::kNone: return ObjectRef();
    case K::kBool: return IntImm(DataType::Bool(), v.b);
    case K::kInt: return IntImm(DataType::Int(v.i == static_cast<int32_t>(v.i) ? 32 : 64), v.i);
    case K::kFloat: return FloatImm(DataType::Float(32), v.f);
    case K::kStr: return String(v.s);
    case K::kTuple:
    case K::kList: {
      Array<ObjectRef> out;
      for (const Value& x : v.items) out.push_back(ToAttrValue(x, span));
      return out;
    }
    case K::kDict: return ToAttrMap(v, span);
    case K::kPrim:
    case K::kRelax:
    case K::kType:
    case K::kBuffer:
    case K::kIterVar:
    case K::kReducer:
    case K::kLayout:
      return v.obj;
    default:
      Fail(v.span.defined() ? v.span : span, absl::StrCat("a ", KindName(v.kind), " cannot be an attribute value"));
  }
}

Map<String, ObjectRef> Parser::ToAttrMap(const Value& v, const Span& span) const {
  if (v.kind != K::kDict) Fail(span, absl::StrCat("expected a dict, got a ", KindName(v.kind)));
  Map<String, ObjectRef> out;
  for (size_t i = 0; i < v.keys.size(); ++i) {
    out.Set(String(ToStr(v.keys[i], v.keys[i].span.defined() ? v.keys[i].span : span)), ToAttrValue(v.items[i], span));
  }
  return out;
}

// ------------------------------------------------------------------ expressions

namespace {

// Canonical dotted names: every way of spelling a TVMScript namespace maps to T / R / I.
std::string Canonical(std::string path) {
  // `relax.op.add` and `relax.op.nn.relu` (with `from tvm import relax`) are the functions R.add
  // and R.nn.relu: TVM's R namespace re-exports relax.op.
  if (absl::StartsWith(path, "R.op.")) return "R." + path.substr(5);
  // Every spelling below starts with "tvm." or "kiln."; T.x, R.x and I.x (nearly every name the
  // evaluator builds) are canonical already.
  if (!absl::StartsWith(path, "tvm.") && !absl::StartsWith(path, "kiln.")) return path;
  static const std::pair<const char*, const char*> kPrefixes[] = {
      {"tvm.script.tirx", "T"}, {"tvm.script.tir", "T"}, {"tvm.tirx", "T"}, {"tvm.tir", "T"},
      {"tvm.script.relax", "R"}, {"tvm.relax", "R"}, {"tvm.script.ir", "I"}, {"tvm.ir", "I"},
      {"tvm.script.ir_module", "I.ir_module"}, {"kiln.script.tirx", "T"}, {"kiln.script.relax", "R"},
      {"kiln.script.ir", "I"}, {"tvm.target.Target", "T.target"},
  };
  for (const auto& [from, to] : kPrefixes) {
    size_t n = std::char_traits<char>::length(from);
    if (path.compare(0, n, from) == 0 && (path.size() == n || path[n] == '.')) return Canonical(to + path.substr(n));
  }
  return path;
}

// Python's repr() of a str: single quotes unless the text has one and no double quote.
std::string PyRepr(const std::string& s) {
  const char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, q);
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (ch == q || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
    } else {
      out.push_back(ch);
    }
  }
  out.push_back(q);
  return out;
}

// Python's repr() of a float: the shortest digits that read back to the same double.
std::string PyFloatRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (std::nearbyint(x) == x && std::fabs(x) < 1e16) return absl::StrFormat("%.1f", x);
  for (int digits = 1;; ++digits) {
    std::string s = absl::StrFormat("%.*g", digits, x);
    if (digits >= 17 || std::strtod(s.c_str(), nullptr) == x) return s;
  }
}

}  // namespace

// [elt for target in iter if cond ...], evaluated at parse time as Python does (T.meta_var
// lists, *[A[i] for i in range(8)] arguments): `iter` is a tuple, a list or range() of constants.
void Parser::EvalComprehension(const doc::Expr& e, size_t gen, std::vector<Value>* out) {
  if (gen == e.generators.size()) {
    out->push_back(Eval(e.value));
    return;
  }
  const doc::Generator& g = e.generators[gen];
  Value iter = Eval(g.iter);
  Span span = SpanOf(g.iter->pos);
  std::vector<Value> items;
  if (iter.is_seq()) {
    items = iter.items;
  } else if (iter.kind == K::kLoops && iter.loops.size() == 1) {
    const LoopSpec& l = iter.loops[0];
    const auto* lo = l.min.as<IntImmNode>();
    const auto* n = l.extent.as<IntImmNode>();
    const auto* st = l.step.defined() ? l.step.as<IntImmNode>() : nullptr;
    if (!lo || !n || (l.step.defined() && (!st || st->value <= 0))) Fail(span, "a comprehension's range() needs constant bounds");
    int64_t step = st ? st->value : 1;
    for (int64_t i = lo->value; i < lo->value + n->value; i += step) items.push_back(Value::Int(i));
  } else {
    Fail(span, absl::StrCat("a comprehension iterates over a tuple, a list or range(), not a ", KindName(iter.kind)));
  }
  for (const Value& item : items) {
    if (g.target->kind == doc::ExprKind::kName) {
      Define(g.target->name, item);
    } else if ((g.target->kind == doc::ExprKind::kTuple || g.target->kind == doc::ExprKind::kList) && item.is_seq() &&
               item.items.size() == g.target->elts.size()) {
      for (size_t k = 0; k < item.items.size(); ++k) {
        if (g.target->elts[k]->kind != doc::ExprKind::kName) Fail(g.target->pos, "a comprehension target is a name or a tuple of names");
        Define(g.target->elts[k]->name, item.items[k]);
      }
    } else {
      Fail(g.target->pos, "a comprehension target is a name or a tuple of names matching the items");
    }
    bool keep = true;
    for (const doc::ExprPtr& cond : g.ifs) keep = keep && ToBool(Eval(cond), SpanOf(cond->pos));
    if (keep) EvalComprehension(e, gen + 1, out);
  }
}

// The text an f-string field shows for a Python-level value: str(), or repr() for `!r`/`!a`.
std::string Parser::FormatFieldValue(const Value& v, const std::string& conversion,
                                     const doc::Expr& field) {
  const bool repr = conversion == "r" || conversion == "a";
  switch (v.kind) {
    case K::kStr: return repr ? PyRepr(v.s) : v.s;
    case K::kInt: return absl::StrCat(v.i);
    case K::kBool: return v.b ? "True" : "False";
    case K::kFloat: return PyFloatRepr(v.f);
    case K::kNone: return "None";
    default:
      Fail(field.pos, absl::StrCat("an f-string cannot format a ", KindName(v.kind)));
  }
}

Value Parser::Eval(const doc::ExprPtr& ep) {
  const doc::Expr& e = *ep;
  Value v;
  switch (e.kind) {
    case doc::ExprKind::kName: v = EvalName(e); break;
    case doc::ExprKind::kConstant:
      switch (e.const_kind) {
        case doc::Expr::ConstKind::kNone: v = Value::None(); break;
        case doc::Expr::ConstKind::kBool: v = Value::Bool(e.bool_value); break;
        case doc::Expr::ConstKind::kInt:
          if (e.int_overflow) Fail(e.pos, absl::StrCat("integer literal ", e.int_text, " does not fit in 64 bits"));
          v = Value::Int(e.int_value);
          break;
        case doc::Expr::ConstKind::kFloat: v = Value::Float(e.float_value); break;
        case doc::Expr::ConstKind::kStr: v = Value::Str(e.str_value); break;
        case doc::Expr::ConstKind::kEllipsis: Fail(e.pos, "'...' is not supported here");
      }
      break;
    case doc::ExprKind::kAttribute: v = EvalAttribute(e); break;
    case doc::ExprKind::kSubscript: v = EvalSubscript(e); break;
    case doc::ExprKind::kSlice: {
      std::vector<Value> parts;
      for (const doc::ExprPtr& p : {e.lower, e.upper, e.step}) parts.push_back(p ? Eval(p) : Value::None());
      v = Value::Seq(K::kSlice, std::move(parts));
      break;
    }
    case doc::ExprKind::kCall: v = EvalCall(e); break;
    case doc::ExprKind::kBinOp: v = EvalBinOp(e); break;
    case doc::ExprKind::kUnaryOp: v = EvalUnary(e); break;
    case doc::ExprKind::kBoolOp: v = EvalBoolOp(e); break;
    case doc::ExprKind::kCompare: v = EvalCompare(e); break;
    case doc::ExprKind::kIfExp: {
      Value test = Eval(e.test);
      if (test.kind == K::kPrim) {
        // `a if cond else b` with a TIR condition is T.if_then_else(cond, a, b), as in TVM.
        if (!Downcast<PrimExpr>(test.obj).dtype().is_bool()) {
          Fail(e.pos, "a conditional expression needs a Python bool or a TIR bool condition");
        }
        CallArgs ca;
        ca.span = ca.func_span = SpanOf(e.pos);
        ca.args = {test, Eval(e.value), Eval(e.orelse)};
        v = CallT("if_then_else", ca);
        break;
      }
      // TVM reports a condition that is neither a Python bool nor a TIR bool at the expression.
      v = ToBool(test, SpanOf(e.pos)) ? Eval(e.value) : Eval(e.orelse);
      break;
    }
    case doc::ExprKind::kTuple:
    case doc::ExprKind::kList: {
      std::vector<Value> items;
      items.reserve(e.elts.size());
      for (const auto& x : e.elts) EvalItem(x, &items);  // (n, *shape): the sequence's items in place
      v = Value::Seq(e.kind == doc::ExprKind::kTuple ? K::kTuple : K::kList, std::move(items));
      break;
    }
    case doc::ExprKind::kDict: {
      v.kind = K::kDict;
      for (size_t i = 0; i < e.keys.size(); ++i) {
        if (!e.keys[i]) Fail(e.pos, "'**' in a dict is not supported");
        v.keys.push_back(Eval(e.keys[i]));
        v.items.push_back(Eval(e.values[i]));
      }
      break;
    }
    case doc::ExprKind::kLambda:
      v.kind = K::kLambda;
      v.lambda = &e;
      break;
    case doc::ExprKind::kComprehension:
      if (e.name != "list" && e.name != "generator") Fail(e.pos, absl::StrCat("a ", e.name, " comprehension is not supported in TVMScript"));
      v = Value::Seq(K::kList, {});
      PushScope();
      EvalComprehension(e, 0, &v.items);
      PopScope();
      break;
    case doc::ExprKind::kJoinedStr:
    case doc::ExprKind::kFormattedValue: {
      std::string text;
      for (const doc::ExprPtr& part : e.kind == doc::ExprKind::kJoinedStr ? e.values
                                                                         : std::vector{ep}) {
        if (part->kind == doc::ExprKind::kConstant) {
          text += part->str_value;
          continue;
        }
        if (part->format_spec && !part->format_spec->values.empty()) {
          Fail(part->format_spec->pos, "f-string format specs are not supported");
        }
        text += FormatFieldValue(Eval(part->value), part->name, *part);
      }
      v = Value::Str(std::move(text));
      break;
    }
    default:
      Fail(e.pos, "this Python expression is not supported in TVMScript");
  }
  if (!v.span.defined()) v.span = SpanOf(e.pos);
  return v;
}

Value Parser::EvalName(const doc::Expr& e) {
  if (const Value* v = Lookup(e.name)) {
    if (v->kind == K::kPoison) throw ParseError{SpanOf(e.pos), "", true};
    // A local scalar (`x: T.int32`) reads as the value stored in it.
    if (v->kind == K::kBuffer && v->b) return Value::Obj(K::kPrim, BufferLoad(Downcast<Buffer>(v->obj), {}, SpanOf(e.pos)));
    Value out = *v;
    out.span = SpanOf(e.pos);
    out.fresh_var = false;
    return out;
  }
  auto alias = aliases_.find(e.name);
  if (alias != aliases_.end()) return Value::Name(alias->second);
  // TVM's layout axes (tvm.tirx.layout.Axis), as its printer spells them: `4 @ Axis.laneid`.
  if (e.name == "range" || e.name == "len" || e.name == "Axis" || e.name == "float" || e.name == "int" || e.name == "bool" ||
      e.name == "getattr" || e.name == "list") {
    return Value::Name(e.name);
  }
  if (!module_name_.empty() && e.name == module_name_) return Value::Of(K::kModule);
  Fail(e.pos, "Undefined variable: " + e.name);
}

Value Parser::EvalAttribute(const doc::Expr& e) {
  Value base = Eval(e.value);
  Span span = SpanOf(e.pos);
  switch (base.kind) {
    case K::kName: return Value::Name(Canonical(base.s + "." + e.name));
    case K::kModule: {
      auto it = gvars_.find(e.name);
      if (it == gvars_.end()) Fail(span, absl::StrCat("module ", module_name_, " has no function '", e.name, "'"));
      return Value::Obj(K::kRelax, it->second);
    }
    case K::kBuffer: {
      Buffer b = Downcast<Buffer>(base.obj);
      if (e.name == "data") return Value::Obj(K::kPrim, b->data);
      if (e.name == "dtype") return Value::Str(b->dtype.ToString());
      if (e.name == "name") return Value::Str(b->name);
      if (e.name == "scope") return Value::Str(b->scope());
      if (e.name == "elem_offset") return Value::Obj(K::kPrim, b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0)));
      if (e.name == "shape" || e.name == "strides") {
        std::vector<Value> items;
        for (const PrimExpr& x : e.name == "shape" ? b->shape : b->strides) items.push_back(Value::Obj(K::kPrim, x));
        return Value::Seq(K::kTuple, std::move(items));
      }
      // A.ty is the buffer's type (shape, dtype, strides, elem_offset, ...): its attributes are
      // the buffer's own.
      if (e.name == "ty") return base;
      if (e.name == "storage_scope") return Value::Str(b->scope());
      if (e.name == "layout") {
        ObjectRef l = EffectiveLayout(b);
        return l.defined() ? Value::Obj(K::kLayout, l) : Value::None();
      }
      if (e.name == "vload" || e.name == "vstore" || e.name == "access_ptr" || e.name == "ptr_to" ||
          e.name == "view" || e.name == "local" || e.name == "permute" || e.name == "rearrange" ||
          e.name == "tile" || e.name == "sub" || e.name == "elem_offset_of") {  // methods: called by EvalCall (A.sub: indexed)
        Value m = Value::Name("Buffer." + e.name);
        m.obj = b;
        return m;
      }
      Fail(span, absl::StrCat("Buffer has no attribute '", e.name, "'"));
    }
    case K::kLayout:
      if (e.name == "storage" || e.name == "size" || e.name == "span" || e.name == "tile") {  // called by EvalCall
        Value m = Value::Name("Layout." + e.name);
        m.obj = base.obj;
        return m;
      }
      break;
    case K::kIterVar:
      if (e.name == "var") return Value::Obj(K::kPrim, base.obj.as<IterVarNode>()->var);
      break;
    case K::kPrim: {
      // x.dtype, and x.ty: its type (T.handle("float32").ty is a typed pointer), usable as a dtype.
      // A scalar buffer (`x = T.local_scalar(...)`) reads as its value but keeps its methods.
      if (const auto* load = base.obj.as<BufferLoadNode>(); load && load->buffer->shape.empty() && e.name == "ptr_to") {
        Value m = Value::Name("Buffer." + e.name);
        m.obj = load->buffer;
        return m;
      }
      PrimExpr x = Downcast<PrimExpr>(base.obj);
      if (e.name == "dtype") return Value::Str(x.dtype().ToString());
      if (e.name == "ty") {
        const auto* var = x.as<VarNode>();
        return Value::Obj(K::kType, var && var->ty.defined() ? var->ty : Type(PrimType(x.dtype())));
      }
      break;
    }
    case K::kRelax: {
      // x.ty (struct_info before TVM v0.26): the value's type, e.g. out_ty=query.ty.
      if (e.name == "ty" || e.name == "struct_info") {
        const Type& t = Downcast<Expr>(base.obj)->ty;
        if (!t.defined()) Fail(span, "this Relax expression has no known type");
        return Value::Obj(K::kType, t);
      }
      // x.astype(dtype): Relax expressions carry this method in TVM (R.astype(x, dtype)).
      if (e.name == "astype") {
        Value m = Value::Name("R.astype");
        m.items.push_back(base);
        return m;
      }
      break;
    }
    case K::kPoison: throw ParseError{span, "", true};
    default: break;
  }
  Fail(span, absl::StrCat("a ", KindName(base.kind), " has no attribute '", e.name, "'"));
}

void Parser::EvalItem(const doc::ExprPtr& x, std::vector<Value>* idx) {
  if (x->kind != doc::ExprKind::kStarred) {
    idx->push_back(Eval(x));
    return;
  }
  // A lone expression stars as itself: rank-polymorphic code (`B[*v] = A[*v]` after `for v in
  // T.grid(*shape)`) gets one loop variable, not a list, when the shape has rank 1.
  Value inner = Eval(x->value);
  if (inner.kind == K::kPrim) {
    idx->push_back(std::move(inner));
    return;
  }
  for (Value& item : ToSeq(inner, SpanOf(x->pos))) idx->push_back(std::move(item));
}

Value Parser::EvalSubscript(const doc::Expr& e) {
  Value base = Eval(e.value);
  Span span = SpanOf(e.pos);
  std::vector<Value> idx;
  idx.reserve(e.slice->elts.size() + 1);
  bool tuple_index = e.slice->kind == doc::ExprKind::kTuple && !e.slice->parenthesized;
  if (tuple_index) {
    for (const auto& x : e.slice->elts) EvalItem(x, &idx);
  } else {
    EvalItem(e.slice, &idx);
  }
  switch (base.kind) {
    case K::kBuffer: return LoadFromBuffer(Downcast<Buffer>(base.obj), idx, span);
    case K::kName:
      if (base.obj.defined() && base.s == "Buffer.sub") return BufferSub(Downcast<Buffer>(base.obj), idx, span);
      if (base.obj.defined() && base.s == "Buffer.tile[]") {
        return BufferTile(Downcast<Buffer>(base.obj), Value::Seq(K::kTuple, base.items), idx, span);
      }
      // T.ptx["mbarrier.init.shared::cta.b64"]: the PTX text form of a T.ptx attribute chain.
      if (base.s == "T.ptx" && idx.size() == 1 && idx[0].kind == K::kStr) {
        return Value::Name("T.ptx." + absl::StrReplaceAll(idx[0].s, {{"::", "__"}}));
      }
      if (base.s == "T.S" || base.s == "T.R") return LayoutSpec(base.s.substr(2), idx, tuple_index, span);
      // T.let[T.int32], T.Buffer[(4,), "float32"] (old sugar): keep the arguments for the caller.
      base.items = idx;
      base.span = span;
      return base;
    case K::kTuple:
    case K::kList: {
      if (idx.size() == 1 && idx[0].kind == K::kSlice) {
        // shape[1:], dims[::-1]: Python's slicing of a tuple or list, with constant bounds.
        int64_t n = static_cast<int64_t>(base.items.size());
        const std::vector<Value>& b = idx[0].items;
        int64_t step = b[2].kind == K::kNone ? 1 : ToInt(b[2], span);
        if (step == 0) Fail(span, "slice step cannot be zero");
        auto bound = [&](const Value& v, int64_t dflt) {
          if (v.kind == K::kNone) return dflt;
          int64_t i = ToInt(v, span);
          if (i < 0) i += n;
          return step > 0 ? std::clamp<int64_t>(i, 0, n) : std::clamp<int64_t>(i, -1, n - 1);
        };
        int64_t lo = bound(b[0], step > 0 ? 0 : n - 1), hi = bound(b[1], step > 0 ? n : -1);
        std::vector<Value> out;
        for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) out.push_back(base.items[i]);
        return Value::Seq(base.kind, std::move(out));
      }
      if (idx.size() != 1) Fail(span, "a tuple index must be a single integer");
      int64_t i = ToInt(idx[0], idx[0].span);
      int64_t n = static_cast<int64_t>(base.items.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) Fail(span, "tuple index out of range");
      return base.items[i];
    }
    case K::kRelax: {
      if (idx.size() != 1) Fail(span, "a Relax tuple index must be a single integer");
      int64_t i = ToInt(idx[0], idx[0].span);
      rx::TupleGetItem item(Downcast<Expr>(base.obj), static_cast<int>(i), span);
      Type t = kiln::relax::ExprType(item);
      if (t.defined()) item.CopyOnWrite()->ty = t;
      return Value::Obj(K::kRelax, item);
    }
    case K::kPoison: throw ParseError{span, "", true};
    default: break;
  }
  Fail(span, absl::StrCat("a ", KindName(base.kind), " cannot be indexed"));
}

Value Parser::EvalCall(const doc::Expr& e) {
  CallArgs a;
  a.span = SpanOf(e.pos);
  a.func_span = SpanOf(e.func->pos);
  Value callee = Eval(e.func);
  // T.Let(body, where={v: value}) names `v` before the body is evaluated.
  if (callee.kind == K::kName && callee.s == "T.Let") {
    const doc::Keyword* where = nullptr;
    for (const auto& kw : e.keywords) if (kw.arg == "where") where = &kw;
    if (!where || e.args.size() != 1 || where->value->kind != doc::ExprKind::kDict) {
      Fail(a.span, "T.Let expects T.Let(body, where={var: value})");
    }
    PushScope();
    std::vector<std::pair<Var, PrimExpr>> lets;
    for (size_t i = 0; i < where->value->keys.size(); ++i) {
      const doc::ExprPtr& key = where->value->keys[i];
      if (!key || key->kind != doc::ExprKind::kName) Fail(a.span, "T.Let's where= keys must be names");
      PrimExpr value = ToPrim(Eval(where->value->values[i]), SpanOf(where->value->values[i]->pos));
      Var var(key->name, value.dtype(), SpanOf(key->pos));
      Define(key->name, Value::Obj(K::kPrim, var));
      lets.emplace_back(var, value);
    }
    PrimExpr body = ToPrim(Eval(e.args[0]), SpanOf(e.args[0]->pos));
    PopScope();
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = Let(it->first, it->second, body, a.span);
    return Value::Obj(K::kPrim, body);
  }
  a.args.reserve(e.args.size());
  a.kwargs.reserve(e.keywords.size());
  for (const auto& x : e.args) {
    if (x->kind == doc::ExprKind::kStarred) {
      Value s = Eval(x->value);
      for (Value& item : ToSeq(s, SpanOf(x->pos))) a.args.push_back(std::move(item));
      continue;
    }
    a.args.push_back(Eval(x));
  }
  for (const auto& kw : e.keywords) {
    if (kw.arg.empty()) Fail(kw.pos, "'**kwargs' is not supported");
    a.kwargs.emplace_back(kw.arg, Eval(kw.value));
  }
  // The value of an annotated binding: R.* may leave its type to the annotation.
  defer_inference_ = &e == annotated_value_;
  struct ClearDefer {
    bool* flag;
    ~ClearDefer() { *flag = false; }
  } clear_defer{&defer_inference_};
  switch (callee.kind) {
    case K::kName:
      if (callee.obj.defined() && absl::StartsWith(callee.s, "Layout.")) return CallLayoutMethod(callee.obj, callee.s, a);
      if (callee.obj.defined()) return CallBufferMethod(Downcast<Buffer>(callee.obj), callee.s, a);
      // A bound Relax method (x.astype): the object it was read from is the first argument.
      if (callee.items.size() == 1 && callee.items[0].kind == K::kRelax) a.args.insert(a.args.begin(), callee.items[0]);
      return CallName(callee.s, a);
    case K::kRelax: return CallRelaxFunction(Downcast<Expr>(callee.obj), a);
    case K::kMacro: return ExpandMacro(callee, a);
    case K::kPoison: throw ParseError{a.span, "", true};
    default: break;
  }
  Fail(a.func_span, absl::StrCat("a ", KindName(callee.kind), " is not callable"));
}

Value Parser::CallName(const std::string& path, CallArgs& a) {
  if (path == "range") return CallT("serial", a);
  // getattr(T, "serial"): a name of a module reached by a computed attribute, as Python reads it.
  if (path == "getattr") {
    if (a.args.size() != 2 || !a.kwargs.empty() || a.args[0].kind != K::kName || a.args[1].kind != K::kStr) {
      Fail(a.span, "getattr() takes a TVMScript module (T, R, I) and an attribute name");
    }
    return Value::Name(Canonical(a.args[0].s + "." + a.args[1].s));
  }
  if (path == "list") {  // Python's list() of a tuple or list (list(shape))
    if (a.args.size() != 1 || !a.kwargs.empty() || !a.args[0].is_seq()) Fail(a.span, "list() takes one tuple or list");
    return Value::Seq(K::kList, a.args[0].items);
  }
  if (path == "len") {  // Python's len() of a tuple or list (e.g. len(A.ty.shape))
    if (a.args.size() != 1 || !a.kwargs.empty() || !a.args[0].is_seq()) Fail(a.span, "len() takes one tuple or list");
    return Value::Int(static_cast<int64_t>(a.args[0].items.size()));
  }
  // Python's float("inf"), int(x) and bool(x) of a constant (R.const(float("inf"), "float32")).
  if (path == "float" || path == "int" || path == "bool") {
    if (a.args.size() != 1 || !a.kwargs.empty()) Fail(a.span, path + "() takes one constant");
    const Value& x = a.args[0];
    double num = 0;
    if (x.is_number()) {
      num = x.kind == K::kFloat ? x.f : x.kind == K::kInt ? static_cast<double>(x.i) : x.b;
    } else if (x.kind == K::kStr && path != "bool") {
      const char* begin = x.s.c_str();
      char* end = nullptr;
      num = path == "float" ? std::strtod(begin, &end) : static_cast<double>(std::strtoll(begin, &end, 10));
      while (end && absl::ascii_isspace(static_cast<unsigned char>(*end))) ++end;
      if (x.s.empty() || end != begin + x.s.size()) Fail((x.span.defined() ? x.span : a.span), absl::StrCat("invalid literal for ", path, "(): ", PyRepr(x.s)));
    } else if (x.kind == K::kStr) {
      return Value::Bool(!x.s.empty());
    } else {
      Fail((x.span.defined() ? x.span : a.span), absl::StrCat(path, "() takes a Python number or string, got a ", KindName(x.kind)));
    }
    if (path == "float") return Value::Float(num);
    if (path == "bool") return Value::Bool(num != 0);
    if (!std::isfinite(num)) Fail((x.span.defined() ? x.span : a.span), "cannot convert an infinite or NaN float to an integer");
    return Value::Int(x.kind == K::kInt ? x.i : static_cast<int64_t>(num));
  }
  // tvm.cpu(0), tvm.cuda(1), tvm.device("cuda", 0): the device R.device(...) describes.
  static const char* kDevices[] = {"cpu", "cuda", "gpu", "opencl", "vulkan", "metal", "rocm", "ext_dev", "webgpu", "hexagon"};
  for (const char* dev : kDevices) {
    if (path != absl::StrCat("tvm.", dev)) continue;
    CallArgs b = a;
    b.args.insert(b.args.begin(), Value::Str(dev));
    return CallR("device", b);
  }
  if (path == "tvm.device") return CallR("device", a);
  if (absl::StartsWith(path, "T.")) return CallT(path.substr(2), a);
  if (absl::StartsWith(path, "R.")) return CallR(path.substr(2), a);
  if (absl::StartsWith(path, "I.")) return CallI(path.substr(2), a);
  Fail(a.func_span, absl::StrCat("'", path, "' is not a TVMScript function"));
}

namespace {

// Python's arithmetic on two number literals. kiln's integer literals are int64 while Python's are
// unbounded, so an integer result outside int64 is an error (`*error` set), never a wrapped value
// (2**64 would read as 0, 2**63 as a negative number). Returns false when `op` does not apply.
bool PythonArith(const std::string& op, const Value& a, const Value& b, Value* out, std::string* error) {
  if (!a.is_number() || !b.is_number()) return false;
  bool is_float = a.kind == K::kFloat || b.kind == K::kFloat;
  auto fv = [](const Value& v) { return v.kind == K::kFloat ? v.f : static_cast<double>(v.kind == K::kBool ? v.b : v.i); };
  auto iv = [](const Value& v) { return v.kind == K::kBool ? static_cast<int64_t>(v.b) : v.i; };
  if (op == "/" || (op == "**" && !is_float && iv(b) < 0)) is_float = true;  // Python: 2 ** -1 == 0.5
  if (op == "/") {
    if (fv(b) == 0) *error = "division by zero in a constant expression";
    else *out = Value::Float(fv(a) / fv(b));
    return true;
  }
  if (is_float) {
    double x = fv(a), y = fv(b);
    if (op == "+") *out = Value::Float(x + y);
    else if (op == "-") *out = Value::Float(x - y);
    else if (op == "*") *out = Value::Float(x * y);
    else if (op == "**") *out = Value::Float(std::pow(x, y));
    else if ((op == "//" || op == "%") && y == 0) *error = "division by zero in a constant expression";
    else if (op == "//") *out = Value::Float(std::floor(x / y));
    else if (op == "%") *out = Value::Float(x - std::floor(x / y) * y);
    else return false;
    return true;
  }
  int64_t x = iv(a), y = iv(b), r = 0;
  bool overflow = false;
  if (op == "+") {
    overflow = __builtin_add_overflow(x, y, &r);
  } else if (op == "-") {
    overflow = __builtin_sub_overflow(x, y, &r);
  } else if (op == "*") {
    overflow = __builtin_mul_overflow(x, y, &r);
  } else if (op == "//" || op == "%") {
    if (y == 0) {
      *error = "division by zero in a constant expression";
      return true;
    }
    overflow = x == std::numeric_limits<int64_t>::min() && y == -1 && op == "//";
    if (!overflow && y == -1) {
      r = op == "//" ? -x : 0;
    } else if (!overflow) {
      r = op == "//" ? x / y - ((x % y != 0) && ((x < 0) != (y < 0))) : x % y;
      if (op == "%" && r != 0 && ((r < 0) != (y < 0))) r += y;
    }
  } else if (op == "<<" || op == ">>") {
    if (y < 0) {
      *error = "negative shift count in a constant expression";
      return true;
    }
    if (op == ">>") {
      r = y >= 64 ? (x < 0 ? -1 : 0) : x >> y;
    } else if (x != 0) {
      overflow = y >= 64 || __builtin_mul_overflow(x, static_cast<int64_t>(uint64_t{1} << y), &r);
      if (y == 63 && x == -1) overflow = false, r = std::numeric_limits<int64_t>::min();
    }
  } else if (op == "&") {
    r = x & y;
  } else if (op == "|") {
    r = x | y;
  } else if (op == "^") {
    r = x ^ y;
  } else if (op == "**") {
    r = 1;  // |x| >= 2 overflows within 64 steps, so the loop is short
    for (int64_t k = 0; k < y && !overflow; ++k) {
      overflow = __builtin_mul_overflow(r, x, &r);
      if (x == 0 || x == 1 || (x == -1 && k >= 1)) {
        r = x == -1 ? (y % 2 == 0 ? 1 : -1) : (x == 0 ? 0 : 1);
        break;
      }
    }
  } else {
    return false;
  }
  if (overflow) {
    *error = absl::StrCat("the constant ", x, " ", op, " ", y, " does not fit in 64 bits (integer literals are int64)");
  } else {
    *out = Value::Int(r);
  }
  return true;
}

tir::Operand OperandOf(const Value& v, const PrimExpr& expr) {
  switch (v.kind) {
    case K::kInt: return tir::Operand::IntLiteral(v.i, v.span);
    case K::kFloat: return tir::Operand::FloatLiteral(v.f, v.span);
    case K::kBool: return tir::Operand::BoolLiteral(v.b, v.span);
    default: return tir::Operand(expr);
  }
}

}  // namespace

Value Parser::EvalBinOp(const doc::Expr& e) {
  Value a = Eval(e.left), b = Eval(e.right);
  Span span = SpanOf(e.pos);
  const std::string& op = e.name;
  Value out;
  std::string error;
  if (PythonArith(op, a, b, &out, &error)) {
    if (!error.empty()) Fail(span, error);
    return out;
  }
  if (LayoutBinOp(op, a, b, span, &out)) return out;
  if (a.kind == K::kRelax || b.kind == K::kRelax) {
    static const std::pair<const char*, const char*> kRelaxOps[] = {
        {"+", "add"}, {"-", "subtract"}, {"*", "multiply"}, {"/", "divide"}, {"//", "floor_divide"},
        {"%", "floor_mod"}, {"**", "power"}, {"&", "bitwise_and"}, {"|", "bitwise_or"}, {"^", "bitwise_xor"},
        {"<<", "left_shift"}, {">>", "right_shift"},
    };
    for (const auto& [sym, name] : kRelaxOps) {
      if (op != sym) continue;
      CallArgs ca;
      ca.span = ca.func_span = span;
      ca.args = {a, b};
      return CallR(name, ca);
    }
    Fail(span, "operator " + op + " is not supported on Relax values");
  }
  if (a.is_seq() && a.kind == b.kind && op == "+") {  // tuple + tuple, list + list
    Value t = a;
    t.items.insert(t.items.end(), b.items.begin(), b.items.end());
    return t;
  }
  // Python repetition: "S" * len(shape) (T.axis.remap kinds for any rank), (1,) * n.
  if (op == "*" && (a.kind == K::kInt || b.kind == K::kInt) && (a.kind == K::kStr || b.kind == K::kStr || a.is_seq() || b.is_seq())) {
    const Value& what = a.kind == K::kInt ? b : a;
    int64_t n = std::max<int64_t>(0, (a.kind == K::kInt ? a : b).i);
    if (n * static_cast<int64_t>(what.kind == K::kStr ? what.s.size() : what.items.size()) > (int64_t{1} << 20)) {
      Fail(span, "repetition result too large");
    }
    Value r = what;
    r.s.clear();
    r.items.clear();
    for (int64_t k = 0; k < n; ++k) {
      r.s += what.s;
      r.items.insert(r.items.end(), what.items.begin(), what.items.end());
    }
    return r;
  }
  PrimExpr pa = a.is_number() ? PrimExpr() : ToPrim(a, a.span);
  PrimExpr pb = b.is_number() ? PrimExpr() : ToPrim(b, b.span);
  tir::Operand oa = OperandOf(a, pa), ob = OperandOf(b, pb);
  static const std::pair<const char*, tir::BinaryOpKind> kOps[] = {
      {"+", tir::BinaryOpKind::kAdd}, {"-", tir::BinaryOpKind::kSub}, {"*", tir::BinaryOpKind::kMul},
      {"/", tir::BinaryOpKind::kDiv}, {"//", tir::BinaryOpKind::kFloorDiv}, {"%", tir::BinaryOpKind::kFloorMod},
  };
  for (const auto& [sym, kind] : kOps) {
    if (op != sym) continue;
    absl::StatusOr<PrimExpr> r = tir::BinaryOp(kind, oa, ob, span);
    if (!r.ok()) Fail(span, std::string(r.status().message()));
    return Value::Obj(K::kPrim, *r);
  }
  static const std::pair<const char*, const char*> kIntrin[] = {
      {"<<", "shift_left"}, {">>", "shift_right"}, {"&", "bitwise_and"}, {"|", "bitwise_or"},
      {"^", "bitwise_xor"}, {"**", "pow"},
  };
  for (const auto& [sym, name] : kIntrin) {
    if (op != sym) continue;
    CallArgs ca;
    ca.span = ca.func_span = span;
    ca.args = {a, b};
    return CallT(name, ca);
  }
  Fail(span, "operator " + op + " is not supported in TIR");
}

namespace {

// Whether an integer literal too wide for int64 is 2**63 ("9223372036854775808", "0x8000000000000000",
// with or without '_'): negated, it is int64's minimum, as TVM prints that value.
bool IsTwoToThe63(const std::string& text) {
  std::string t;
  for (char c : text) {
    if (c != '_') t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'o' || t[1] == 'b')) {
    base = t[1] == 'x' ? 16 : t[1] == 'o' ? 8 : 2;
    t = t.substr(2);
  }
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(t.c_str(), &end, base);
  return errno == 0 && end != nullptr && *end == '\0' && v == (1ULL << 63);
}

}  // namespace

Value Parser::EvalUnary(const doc::Expr& e) {
  const doc::Expr& operand = *e.value;
  if (e.name == "-" && operand.kind == doc::ExprKind::kConstant && operand.const_kind == doc::Expr::ConstKind::kInt &&
      operand.int_overflow && IsTwoToThe63(operand.int_text)) {
    return Value::Int(std::numeric_limits<int64_t>::min());
  }
  Value x = Eval(e.value);
  Span span = SpanOf(e.pos);
  const std::string& op = e.name;
  if (op == "+") return x;
  if (x.is_number()) {
    if (op == "-" && x.kind == K::kInt && x.i == std::numeric_limits<int64_t>::min()) {
      Fail(span, absl::StrCat("the constant -(", x.i, ") does not fit in 64 bits (integer literals are int64)"));
    }
    if (op == "-") return x.kind == K::kFloat ? Value::Float(-x.f) : Value::Int(-(x.kind == K::kBool ? x.b : x.i));
    if (op == "not") return Value::Bool(!(x.kind == K::kFloat ? x.f != 0 : (x.kind == K::kBool ? x.b : x.i != 0)));
    if (op == "~" && x.kind != K::kFloat) return Value::Int(~(x.kind == K::kBool ? static_cast<int64_t>(x.b) : x.i));
  }
  if (x.kind == K::kRelax) {
    CallArgs ca;
    ca.span = ca.func_span = span;
    ca.args = {x};
    if (op == "-") return CallR("negative", ca);
    if (op == "not") return CallR("logical_not", ca);
    if (op == "~") return CallR("bitwise_not", ca);
  }
  PrimExpr px = ToPrim(x, x.span);
  absl::StatusOr<PrimExpr> r;
  if (op == "-") {
    r = tir::Negate(tir::Operand(px), span);
  } else if (op == "not") {
    r = tir::LogicalNot(tir::Operand(px), span);
  } else if (op == "~") {
    CallArgs ca;
    ca.span = ca.func_span = span;
    ca.args = {x};
    return CallT("bitwise_not", ca);
  } else {
    Fail(span, "unary operator " + op + " is not supported");
  }
  if (!r.ok()) Fail(span, std::string(r.status().message()));
  return Value::Obj(K::kPrim, *r);
}

Value Parser::EvalBoolOp(const doc::Expr& e) {
  bool is_and = e.name == "and";
  Span span = SpanOf(e.pos);
  Value acc = Eval(e.values[0]);
  for (size_t i = 1; i < e.values.size(); ++i) {
    if (acc.is_number()) {
      bool truth = acc.kind == K::kFloat ? acc.f != 0 : (acc.kind == K::kBool ? acc.b : acc.i != 0);
      if (truth != is_and) return acc;  // Python short-circuit on constants
      acc = Eval(e.values[i]);
      continue;
    }
    Value next = Eval(e.values[i]);
    PrimExpr pn = next.is_number() ? PrimExpr() : ToPrim(next, next.span);
    absl::StatusOr<PrimExpr> r = tir::BinaryOp(is_and ? tir::BinaryOpKind::kAnd : tir::BinaryOpKind::kOr,
                                               tir::Operand(ToPrim(acc, acc.span)), OperandOf(next, pn), span);
    if (!r.ok()) Fail(span, std::string(r.status().message()));
    acc = Value::Obj(K::kPrim, *r);
  }
  return acc;
}

Value Parser::EvalCompare(const doc::Expr& e) {
  Span span = SpanOf(e.pos);
  Value left = Eval(e.left);
  Value result;
  for (size_t i = 0; i < e.ops.size(); ++i) {
    Value right = Eval(e.comparators[i]);
    const std::string& op = e.ops[i];
    Value cmp;
    if (left.is_number() && right.is_number()) {
      double x = left.kind == K::kFloat ? left.f : static_cast<double>(left.kind == K::kBool ? left.b : left.i);
      double y = right.kind == K::kFloat ? right.f : static_cast<double>(right.kind == K::kBool ? right.b : right.i);
      bool r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y
             : op == "==" ? x == y : op == "!=" ? x != y : false;
      if (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "==" && op != "!=") {
        Fail(span, "comparison " + op + " is not supported");
      }
      cmp = Value::Bool(r);
    } else if (left.kind == K::kStr && right.kind == K::kStr && (op == "==" || op == "!=")) {
      cmp = Value::Bool((left.s == right.s) == (op == "=="));
    } else if (left.kind == K::kRelax || right.kind == K::kRelax) {
      static const std::pair<const char*, const char*> kRelaxCmp[] = {
          {"<", "less"}, {"<=", "less_equal"}, {">", "greater"}, {">=", "greater_equal"}, {"==", "equal"}, {"!=", "not_equal"}};
      const char* name = nullptr;
      for (const auto& [sym, n] : kRelaxCmp) if (op == sym) name = n;
      if (!name) Fail(span, "comparison " + op + " is not supported on Relax values");
      CallArgs ca;
      ca.span = ca.func_span = span;
      ca.args = {left, right};
      cmp = CallR(name, ca);
    } else {
      static const std::pair<const char*, tir::BinaryOpKind> kCmp[] = {
          {"<", tir::BinaryOpKind::kLT}, {"<=", tir::BinaryOpKind::kLE}, {">", tir::BinaryOpKind::kGT},
          {">=", tir::BinaryOpKind::kGE}, {"==", tir::BinaryOpKind::kEQ}, {"!=", tir::BinaryOpKind::kNE}};
      bool found = false;
      for (const auto& [sym, kind] : kCmp) {
        if (op != sym) continue;
        found = true;
        PrimExpr pl = left.is_number() ? PrimExpr() : ToPrim(left, left.span);
        PrimExpr pr = right.is_number() ? PrimExpr() : ToPrim(right, right.span);
        absl::StatusOr<PrimExpr> r = tir::BinaryOp(kind, OperandOf(left, pl), OperandOf(right, pr), span);
        if (!r.ok()) Fail(span, std::string(r.status().message()));
        cmp = Value::Obj(K::kPrim, *r);
      }
      if (!found) Fail(span, "comparison " + op + " is not supported in TIR");
    }
    if (i == 0) {
      result = cmp;
    } else if (result.kind == K::kBool && cmp.kind == K::kBool) {
      result = Value::Bool(result.b && cmp.b);
    } else {
      absl::StatusOr<PrimExpr> r = tir::BinaryOp(tir::BinaryOpKind::kAnd, tir::Operand(ToPrim(result, span)),
                                                 tir::Operand(ToPrim(cmp, span)), span);
      if (!r.ok()) Fail(span, std::string(r.status().message()));
      result = Value::Obj(K::kPrim, *r);
    }
    left = right;
  }
  return result;
}

// ------------------------------------------------------------------ module level

Value Parser::CallI(const std::string& name, CallArgs& a) {
  if (name == "meta_var") {  // a Python-level value used as it is (no binding of its own)
    if (a.args.size() != 1 || !a.kwargs.empty()) Fail(a.span, "I.meta_var takes one value");
    Value v = a.args[0];
    v.meta = true;
    return v;
  }
  if (name == "module_attrs") {
    if (!module_.defined() || a.args.size() != 1) Fail(a.span, "I.module_attrs({...}) belongs in an @I.ir_module class");
    if (tir_.func() || relax_depth_ > 0) Fail(a.span, "I.module_attrs must be called immediately under I.ir_module(), not inside a function");
    if (!module_->attrs.empty()) Fail(a.span, "I.module_attrs is given twice: a module sets its attributes in one call");
    for (const auto& [k, v] : ToAttrMap(a.args[0], a.args[0].span).items()) module_.CopyOnWrite()->attrs.Set(k, v);
    return Value::None();
  }
  if (name == "module_global_infos") {
    if (!module_.defined() || a.args.size() != 1 || a.args[0].kind != K::kDict) {
      Fail(a.span, "I.module_global_infos({...}) belongs in an @I.ir_module class");
    }
    if (tir_.func() || relax_depth_ > 0) {
      Fail(a.span, "I.module_global_infos must be called immediately under I.ir_module(), not inside a function");
    }
    if (!module_->global_infos.empty()) {
      Fail(a.span, "duplicate module global_infos: I.module_global_infos is given twice");
    }
    const Value& d = a.args[0];
    for (size_t i = 0; i < d.keys.size(); ++i) {
      Array<GlobalInfo> infos;
      for (const Value& x : ToSeq(d.items[i], d.items[i].span)) {
        if (x.kind != K::kType || !x.obj.as<GlobalInfoNode>()) Fail(x.span, "expected I.vdevice(...) or another global info");
        infos.push_back(Downcast<GlobalInfo>(x.obj));
      }
      module_.CopyOnWrite()->global_infos.Set(String(ToStr(d.keys[i], d.keys[i].span)), infos);
    }
    return Value::None();
  }
  if (name == "vdevice" || name == "VDevice") {  // I.VDevice: tvm.ir.VDevice, the same object
    Map<String, ObjectRef> attrs;
    static const char* kNames[] = {"target", "vdevice_id", "memory_scope"};
    for (size_t i = 0; i < a.args.size() && i < 3; ++i) attrs.Set(String(kNames[i]), ToAttrValue(a.args[i], a.span));
    for (const auto& [k, v] : a.kwargs) attrs.Set(String(k), ToAttrValue(v, a.span));
    return Value::Obj(K::kType, GlobalInfo("vdevice", attrs));
  }
  if (name == "dummy_global_info") return Value::Obj(K::kType, GlobalInfo("dummy", {}));
  if (name == "Op.get") {  // tvm.ir.Op.get("tirx.call_extern"): an operator, e.g. for T.Call
    if (a.args.size() != 1 || !a.kwargs.empty()) Fail(a.span, "I.Op.get takes an operator name");
    return Value::Obj(K::kRelax, Op(ToStr(a.args[0], a.args[0].span)));
  }
  if (name == "Range") {  // I.Range(begin, end): a device mesh's device range
    if (a.args.size() != 2 || !a.kwargs.empty()) Fail(a.span, "I.Range(begin, end) takes two values");
    int64_t lo = ToInt(a.args[0], a.span), hi = ToInt(a.args[1], a.span);
    return Value::Obj(K::kType, Range(IntImm(DataType::Int(32), lo), IntImm(DataType::Int(32), hi - lo)));
  }
  Fail(a.func_span, absl::StrCat("I.", name, " is not a TVMScript function"));
}

namespace {

// The decorator's kind: "T.prim_func", "R.function", "I.ir_module", or "" for others.
struct Decorator {
  std::string name;
  CallArgs args;
  bool called = false;
};

}  // namespace

ObjectRef Parser::ParseModule(const doc::Module& m, const std::string& select_name) {
  PushScope();
  aliases_ = {{"T", "T"}, {"R", "R"}, {"I", "I"}, {"tvm", "tvm"}};
  std::vector<std::pair<std::string, ObjectRef>> defs;

  auto decorator_of = [&](const doc::Stmt& s, Decorator* d) -> bool {
    for (const doc::ExprPtr& deco : s.decorators) {
      const doc::Expr* fn = deco.get();
      if (deco->kind == doc::ExprKind::kCall) {
        fn = deco->func.get();
        d->called = true;
      }
      Value v = Eval(fn->kind == doc::ExprKind::kCall ? deco : (deco->kind == doc::ExprKind::kCall ? deco->func : deco));
      if (v.kind != K::kName) Fail(deco->pos, "unsupported decorator");
      std::string name = v.s;
      if (name == "I.ir_module" || name == "tvm.script.ir_module" || name == "ir_module") name = "I.ir_module";
      if (name != "T.prim_func" && name != "R.function" && name != "I.ir_module" && name != "T.macro" &&
          name != "T.inline") {
        Fail(deco->pos, absl::StrCat("unsupported decorator '", v.s,
                                     "': expected @T.prim_func, @R.function, @T.macro, @T.inline or @I.ir_module"));
      }
      d->name = name;
      d->args.span = SpanOf(deco->pos);
      if (deco->kind == doc::ExprKind::kCall) {
        for (const auto& x : deco->args) d->args.args.push_back(Eval(x));
        for (const auto& kw : deco->keywords) d->args.kwargs.emplace_back(kw.arg, Eval(kw.value));
      }
      return true;
    }
    return false;
  };

  for (const doc::StmtPtr& sp : m.body) {
    const doc::Stmt& s = *sp;
    try {
      switch (s.kind) {
        case doc::StmtKind::kImport:
          for (const doc::Alias& a : s.names) {
            if (a.name == "tvm" || absl::StartsWith(a.name, "tvm.") || a.name == "kiln" || absl::StartsWith(a.name, "kiln.")) {
              std::string local = a.asname.empty() ? a.name.substr(0, a.name.find('.')) : a.asname;
              aliases_[local] = a.asname.empty() ? local : Canonical(a.name);
              continue;
            }
            Fail(a.pos, absl::StrCat("import of '", a.name, "' is not supported at module level (only tvm and kiln)"));
          }
          break;
        case doc::StmtKind::kImportFrom: {
          bool tvm_like = s.module == "tvm" || absl::StartsWith(s.module, "tvm.") || absl::StartsWith(s.module, "kiln.");
          if (!tvm_like) Fail(s.pos, absl::StrCat("import from '", s.module, "' is not supported at module level"));
          for (const doc::Alias& a : s.names) {
            std::string full = Canonical(absl::StrCat(s.module == "kiln.script" ? "tvm.script" : s.module, ".", a.name));
            std::string local = a.asname.empty() ? a.name : a.asname;
            if (full == "T" && absl::EndsWith(s.module + "." + a.name, ".tir")) {
              Warn(SpanOf(a.pos), "'tvm.script.tir' is spelled 'tirx' in TVM v0.26: from tvm.script import tirx as T");
            }
            if ((s.module == "tvm.tirx.lang.warp_role" || s.module == "tvm.backend.cuda.lang.warp_role") &&
                (a.name == "WarpRole" || a.name == "WarpgroupRole")) {
              aliases_[local] = "lang." + a.name;  // `with WarpRole(...)`: parse_tile_roles.cc
              continue;
            }
            if (s.module == "tvm.tirx.layout") {
              // `from tvm.tirx.layout import S, TileLayout, TLane`: the layout builders T.S, T.R,
              // T.TileLayout, T.ComposeLayout, and the axes TVM's module exports by name.
              static const char* const kAxes[] = {"bx", "by", "bz", "cbx", "cby", "cbz", "tx", "warpid", "laneid",
                                                  "wgid", "tid_in_wg", "wid_in_wg", "m", "P", "F", "Bank", "TCol",
                                                  "TLane"};
              bool axis = std::find(std::begin(kAxes), std::end(kAxes), a.name) != std::end(kAxes);
              bool builder = a.name == "S" || a.name == "R" || a.name == "TileLayout" || a.name == "ComposeLayout";
              if (axis) aliases_[local] = "Axis." + a.name;
              if (builder) aliases_[local] = "T." + a.name;
              continue;
            }
            if (full != "T" && full != "R" && full != "I" && full != "I.ir_module" && !absl::StartsWith(full, "T.") &&
                !absl::StartsWith(full, "R.") && !absl::StartsWith(full, "I.")) {
              // Other tvm imports (e.g. `from tvm.tirx.layout import Axis` in printed headers) are
              // harmless: their names are simply not used by the definitions.
              continue;
            }
            aliases_[local] = full;
          }
          break;
        }
        case doc::StmtKind::kAssign: {
          if (s.targets.size() != 1 || s.targets[0]->kind != doc::ExprKind::kName) {
            Fail(s.pos, "only simple constant assignments (NAME = value) are supported at module level");
          }
          Value v = Eval(s.value);
          if (!v.is_number() && v.kind != K::kStr && !v.is_seq()) {
            Fail(s.value->pos, "only constant assignments are supported at module level");
          }
          Define(s.targets[0]->name, v);
          break;
        }
        case doc::StmtKind::kClassDef: {
          Decorator d;
          if (!decorator_of(s, &d) || d.name != "I.ir_module") Fail(s.pos, "a class must be decorated with @I.ir_module");
          defs.emplace_back(s.name, ParseIRModule(s, d.args));
          break;
        }
        case doc::StmtKind::kFunctionDef: {
          Decorator d;
          if (!decorator_of(s, &d)) Fail(s.pos, "a function must be decorated with @T.prim_func or @R.function");
          if (d.name == "T.prim_func") {
            defs.emplace_back(s.name, ParsePrimFunc(s, s.name, &d.args));
          } else if (d.name == "R.function") {
            defs.emplace_back(s.name, ParseRelaxFunc(s, s.name, &d.args, true));
          } else if (d.name == "T.macro") {
            Define(s.name, DefineMacro(s, d.args));
          } else if (d.name == "T.inline") {
            // At module level TVM's inline function reads the module's values: a hygienic macro.
            if (!d.args.args.empty() || !d.args.kwargs.empty()) Fail(s.pos, "T.inline takes no arguments: @T.inline or @T.inline()");
            Define(s.name, DefineMacro(s, CallArgs{}));
          } else {
            Fail(s.pos, "@I.ir_module decorates a class");
          }
          break;
        }
        case doc::StmtKind::kPass:
          break;
        default:
          Fail(s.pos, "this statement is not supported at module level");
      }
    } catch (const ParseError& e) {
      Report(e);
    }
  }
  PopScope();
  if (error_count_ > 0) return ObjectRef();
  if (defs.empty()) {
    Span span;
    span.source = filename_;
    span.line = 1;
    span.column = 1;
    Report({span, "no TVMScript definition found (@I.ir_module, @T.prim_func or @R.function)"});
    return ObjectRef();
  }
  if (select_name.empty()) return defs.back().second;
  for (const auto& [name, node] : defs) if (name == select_name) return node;
  std::vector<std::string> names;
  for (const auto& [name, node] : defs) names.push_back(name);
  Span span;
  span.source = filename_;
  span.line = 1;
  span.column = 1;
  Report({span, absl::StrCat("no definition named '", select_name, "' (found: ", absl::StrJoin(names, ", "), ")")});
  return ObjectRef();
}

IRModule Parser::ParseIRModule(const doc::Stmt& cls, const CallArgs& deco) {
  module_ = IRModule::Make();
  module_name_ = cls.name;
  gvars_.clear();
  check_well_formed_ = check_well_formed_default_;
  for (const auto& [k, v] : deco.kwargs) {
    if (k == "check_well_formed") check_well_formed_ = ToBool(v, v.span.defined() ? v.span : deco.span);
  }
  well_formed_check_off_ |= !check_well_formed_;
  PushScope();
  // Functions may refer to each other in any order: declare every name first, parse PrimFuncs
  // (which refer to nothing Relax), give Relax GlobalVars their signature types, then parse Relax
  // functions. The module keeps the source order.
  std::vector<std::pair<const doc::Stmt*, std::string>> funcs;  // def, decorator kind
  std::vector<std::pair<const doc::Stmt*, CallArgs>> deco_args;
  // A class deriving from BasePyModule (TVM's module with Python methods) may hold @I.pyfunc
  // methods: each is an ExternFunc of its name carrying its Python source, as in TVM.
  const bool base_py_module = std::any_of(cls.bases.begin(), cls.bases.end(), [](const doc::ExprPtr& b) {
    return (b->kind == doc::ExprKind::kName || b->kind == doc::ExprKind::kAttribute) && b->name == "BasePyModule";
  });
  std::map<std::string, BaseFunc> pyfuncs;
  for (const doc::StmtPtr& sp : cls.body) {
    const doc::Stmt& s = *sp;
    if (s.kind != doc::StmtKind::kFunctionDef) continue;
    if (!s.source.empty()) {
      try {
        if (!base_py_module) {
          Fail(s.pos, absl::StrCat("@I.pyfunc are only allowed in classes that inherit from BasePyModule. Class '",
                                   cls.name, "' does not inherit from BasePyModule."));
        }
        if (gvars_.count(s.name)) Fail(s.pos, absl::StrCat("function '", s.name, "' is defined twice"));
      } catch (const ParseError& e) {
        Report(e);
        continue;
      }
      rx::ExternFunc f(s.name, SpanOf(s.pos));
      f.CopyOnWrite()->ty = PackedFuncType::Make();
      f.CopyOnWrite()->attrs.Set(String("is_pyfunc"), IntImm(DataType::Bool(), 1));
      f.CopyOnWrite()->attrs.Set(String("function_type"), String("python"));
      f.CopyOnWrite()->attrs.Set(String("python_function_name"), String(s.name));
      f.CopyOnWrite()->attrs.Set(String("python_source"), String(s.source));
      GlobalVar gv(s.name, SpanOf(s.pos));
      gv.CopyOnWrite()->ty = f->ty;
      gvars_[s.name] = gv;
      module_.Add(gv, f);
      pyfuncs[s.name] = f;
      continue;
    }
    std::string kind;
    CallArgs args;
    try {
      for (const doc::ExprPtr& deco : s.decorators) {
        const doc::ExprPtr& fn = deco->kind == doc::ExprKind::kCall ? deco->func : deco;
        Value v = Eval(fn);
        if (v.kind == K::kName) kind = v.s;
        args.span = args.func_span = SpanOf(deco->pos);  // where errors about its arguments point
        if (deco->kind == doc::ExprKind::kCall) {
          for (const auto& x : deco->args) args.args.push_back(Eval(x));
          for (const auto& kw : deco->keywords) args.kwargs.emplace_back(kw.arg, Eval(kw.value));
        }
      }
      if (kind != "T.prim_func" && kind != "R.function") Fail(s.pos, "a function in an @I.ir_module class must be decorated with @T.prim_func or @R.function");
      if (gvars_.count(s.name)) Fail(s.pos, absl::StrCat("function '", s.name, "' is defined twice"));
    } catch (const ParseError& e) {
      Report(e);
      continue;
    }
    gvars_[s.name] = GlobalVar(s.name, SpanOf(s.pos));
    if (kind == "T.prim_func") {
      DataType ret = DataType::Void();
      if (s.returns) {
        try {
          ret = ToDType(Eval(s.returns), SpanOf(s.returns->pos));
        } catch (const ParseError&) {
          // Reported when the function itself is parsed.
        }
      }
      tir_ret_[s.name] = ret;
    }
    funcs.emplace_back(&s, kind);
    deco_args.emplace_back(&s, std::move(args));
  }
  std::map<std::string, BaseFunc> externs;  // bound by class-level assignments
  // Class-level statements other than functions: module attributes and global infos (first: the
  // functions' R.DTensor annotations name device meshes of the global infos), docstrings (TVM
  // evaluates an expression statement and drops its value), and `name = R.ExternFunc(...)`,
  // which TVM adds to the module as the function `name`.
  for (const doc::StmtPtr& sp : cls.body) {
    const doc::Stmt& s = *sp;
    if (s.kind == doc::StmtKind::kFunctionDef || s.kind == doc::StmtKind::kPass) continue;
    try {
      if (s.kind == doc::StmtKind::kExpr) {
        Eval(s.value);
      } else if (s.kind == doc::StmtKind::kAssign && s.targets.size() == 1 &&
                 s.targets[0]->kind == doc::ExprKind::kName) {
        const std::string& name = s.targets[0]->name;
        Value v = Eval(s.value);
        if (v.kind != K::kRelax || !v.obj.as<rx::ExternFuncNode>()) {
          Fail(s.value->pos, "a class-level assignment in an @I.ir_module must bind an R.ExternFunc");
        }
        if (gvars_.count(name)) Fail(s.pos, absl::StrCat("function '", name, "' is defined twice"));
        GlobalVar gv(name, SpanOf(s.targets[0]->pos));
        gv.CopyOnWrite()->ty = v.obj.as<rx::ExternFuncNode>()->ty;
        gvars_[name] = gv;
        module_.Add(gv, Downcast<BaseFunc>(v.obj));
        externs[name] = Downcast<BaseFunc>(v.obj);
      } else if (s.kind == doc::StmtKind::kAssign && s.targets.size() > 1) {
        Fail(s.pos, "chained assignment like 'a = b = c' is not supported");
      } else {
        Fail(s.pos, "only functions, name = R.ExternFunc(...), I.module_attrs and I.module_global_infos may appear in an @I.ir_module class");
      }
    } catch (const ParseError& e) {
      Report(e);
    }
  }
  if (base_py_module) module_.CopyOnWrite()->attrs.Set(String("base_py_module"), IntImm(DataType::Bool(), 1));
  std::map<std::string, BaseFunc> parsed = pyfuncs;
  for (size_t i = 0; i < funcs.size(); ++i) {
    if (funcs[i].second != "T.prim_func") continue;
    const doc::Stmt& s = *funcs[i].first;
    try {
      PrimFunc f = ParsePrimFunc(s, s.name, &deco_args[i].second);
      if (f.defined()) {
        parsed[s.name] = f;
        module_.Add(gvars_[s.name], f);
      }
    } catch (const ParseError& e) {
      Report(e);
    }
  }
  for (size_t i = 0; i < funcs.size(); ++i) {
    if (funcs[i].second != "R.function") continue;
    try {
      Type sig = ParseRelaxSignature(*funcs[i].first);
      gvars_[funcs[i].first->name].CopyOnWrite()->ty = sig;
    } catch (const ParseError& e) {
      // Reported again, with context, when the function itself is parsed.
    }
  }
  for (size_t i = 0; i < funcs.size(); ++i) {
    if (funcs[i].second != "R.function") continue;
    const doc::Stmt& s = *funcs[i].first;
    try {
      rx::Function f = ParseRelaxFunc(s, s.name, &deco_args[i].second, true);
      if (f.defined()) {
        parsed[s.name] = f;
        module_.Add(gvars_[s.name], f);
      }
    } catch (const ParseError& e) {
      Report(e);
    }
  }
  PopScope();
  // Rebuild in source order.
  IRModule out = IRModule::Make();
  out.CopyOnWrite()->attrs = module_->attrs;
  out.CopyOnWrite()->global_infos = module_->global_infos;
  for (const doc::StmtPtr& s : cls.body) {
    if (s->kind == doc::StmtKind::kFunctionDef) {
      auto it = parsed.find(s->name);
      if (it != parsed.end()) out.Add(gvars_[s->name], it->second);
    } else if (s->kind == doc::StmtKind::kAssign && s->targets.size() == 1) {
      auto it = externs.find(s->targets[0]->name);
      if (it != externs.end()) out.Add(gvars_[it->first], it->second);
    }
  }
  module_ = IRModule();
  module_name_.clear();
  check_well_formed_ = check_well_formed_default_;
  return out;
}

}  // namespace kiln::script::parser
