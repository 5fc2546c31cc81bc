// The C backend's printer of lowered TIR, shared with the other C-family source backends (OpenCL C
// extends it: compiler/target/source/opencl). Expressions and most statements print the same in
// every C dialect; a backend that differs overrides the visitor for that node or one of the hooks
// (PointerQualifier, BackendName) and brings its own function emission. Internal to the source
// backends: other code uses GenerateC (codegen_c.h).
#ifndef KILN_COMPILER_TARGET_SOURCE_C_C_PRINTER_H_
#define KILN_COMPILER_TARGET_SOURCE_C_C_PRINTER_H_

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/ir/module.h"
#include "compiler/tir/analysis/free_vars.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/op/builtin.h"

namespace kiln::codegen::csrc {

using namespace ir;  // NOLINT: the printer names IR nodes on nearly every line

// Temporaries of a constant size up to this many bytes live on the stack.
inline constexpr int64_t kStackLimit = 16 * 1024;

// The C type of a TIR scalar type ("" if it has none).
std::string CType(DataType t);
// The C type a buffer element is stored as (bfloat16 differs from its compute type).
std::string StorageType(DataType t);
// The helper-name suffix of a scalar type (kiln_min_<suffix>, ...).
std::string Suffix(DataType t);
// The unsigned type that signed arithmetic of `t` is done in.
std::string Unsigned(DataType t);
std::string IntLiteral(DataType t, int64_t v);
std::string FloatLiteral(DataType t, double v);
// Reserved words and the names the printer declares itself.
bool IsKeyword(const std::string& s);
// The C math function for a float intrinsic ("" if none).
std::string MathName(const std::string& op, DataType t);

class CodegenC : public ExprFunctor<std::string(const PrimExpr&)>, public StmtFunctor<void(const Stmt&)> {
 public:
  virtual ~CodegenC() = default;

  // The C source of every PrimFunc of a lowered module.
  absl::StatusOr<std::string> Run(const IRModule& mod);

 protected:
  // Hooks for source backends that extend this printer (compiler/target/source/opencl).
  // The address-space qualifier a pointer cast of buffer data `data` needs ("" in C).
  virtual std::string PointerQualifier(const VarNode* data) { return ""; }
  // Whether `s` cannot name a variable (IsKeyword in C; a dialect adds its own words).
  virtual bool IsReserved(const std::string& s) const { return IsKeyword(s); }
  // Names the backend in error messages.
  virtual const char* BackendName() const { return "C codegen"; }

  absl::Status EmitFunction(const std::string& name, const PrimFuncNode* f, std::ostringstream* protos,
                            std::ostringstream* bodies) {
    names_.clear();
    used_names_.clear();
    outlined_ = 0;
    symbol_ = driver::LoweredSymbol(name, f);
    fname_ = CFunctionName(symbol_);
    packed_ = driver::IsPackedEntry(f);
    std::string sig;
    if (packed_) {
      if (f->params.size() != 4) return absl::InvalidArgumentError(absl::StrCat(symbol_, ": packed entry needs 4 params"));
      // The public entry owns the arena; the body may return early from anywhere.
      std::vector<std::string> p;
      const char* kParamNames[] = {"self", "args", "num_args", "result"};
      for (int i = 0; i < 4; ++i) names_[f->params[i].get()] = kParamNames[i];
      // The exported symbol is the kernel's own name (an asm label), whatever C allows: `div` or
      // `malloc` would clash with libc's declarations, and a symbol may not be a C identifier. The
      // label is quoted for the assembler only when it is not a plain identifier, which then takes
      // any character but a quote or a backslash (the verifier's rule for a global_symbol):
      // `0main`, `fused_kernel[`. Plain names stay bare: GCC derives `NAME.cold` labels from them
      // when it splits a function, and `"NAME".cold` does not assemble.
      bool plain = !symbol_.empty() && !absl::ascii_isdigit(symbol_[0]) &&
                   std::all_of(symbol_.begin(), symbol_.end(), [](char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '$'; });
      std::string label = plain ? symbol_ : absl::StrCat("\\\"", symbol_, "\\\"");
      *protos << "int32_t " << fname_ << "(void* self, const kiln_Any* args, int32_t num_args, kiln_Any* result)"
              << " __asm__(\"" << label << "\");\n";
      sig = absl::StrCat("static int32_t ", fname_, "_body(void* self, const kiln_Any* args, int32_t num_args, kiln_Any* result, kiln_Arena* arena)");
      *protos << sig << ";\n";
    } else {
      std::vector<std::string> params;
      for (const Var& v : f->params) params.push_back(absl::StrCat(CType(v.dtype()), " ", Name(v.get())));
      params.push_back("kiln_Arena* arena");
      params.push_back("kiln_Any* result");
      ret_type_ = f->ret_type.defined() && f->ret_type.as<PrimTypeNode>() ? f->ret_type.as<PrimTypeNode>()->dtype : DataType::Int(32);
      sig = absl::StrCat("static ", CType(ret_type_), " ", fname_, "(", absl::StrJoin(params, ", "), ")");
      *protos << sig << ";\n";
    }
    body_.str("");
    body_.clear();
    indent_ = 1;
    status_ = absl::OkStatus();
    in_parallel_ = false;
    VisitStmt(f->body);
    if (!status_.ok()) return status_;
    *bodies << outlined_src_.str();
    outlined_src_.str("");
    outlined_src_.clear();
    *bodies << sig << " {\n  int32_t rc = 0;\n" << body_.str();
    // Every early exit (failed assert, return) jumps here; the entry wrapper frees the arena.
    if (packed_) {
      *bodies << "kiln_exit:\n  return rc;\n}\n\n";
    } else {
      *bodies << "kiln_exit:\n  (void)rc;\n  return (" << CType(ret_type_) << ")0;\n}\n\n";
    }
    if (packed_) {
      *bodies << "int32_t " << fname_ << "(void* self, const kiln_Any* args, int32_t num_args, kiln_Any* result) {\n"
              << "  kiln_Arena arena = {0};\n"
              << "  int32_t rc = " << fname_ << "_body(self, args, num_args, result, &arena);\n"
              << "  kiln_arena_free(&arena);\n  return rc;\n}\n\n";
    }
    return absl::OkStatus();
  }

  std::string Name(const VarNode* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string base;
    for (char c : v->name) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
    if (base.rfind("kiln_", 0) == 0) base = "v_" + base;
    std::string name = base;
    for (int i = 1; IsReserved(name) || used_names_.count(name); ++i) name = absl::StrCat(base, "_", i);
    used_names_.insert(name);
    names_[v] = name;
    return name;
  }

  // The C identifier of the function whose symbol is `symbol`: prefixed so that no kernel name
  // clashes with the C library, and with every character C does not allow in a name escaped
  // ('_' as "__", any other as "_XX" in hex) so that two symbols never share an identifier.
  static std::string CFunctionName(const std::string& symbol) {
    std::string out = "kiln_fn_";
    for (char c : symbol) {
      if (absl::ascii_isalnum(c)) {
        out.push_back(c);
      } else if (c == '_') {
        out += "__";
      } else {
        out += absl::StrFormat("_%02X", static_cast<unsigned char>(c));
      }
    }
    return out;
  }

  void Fail(const std::string& msg) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat(BackendName(), " (", symbol_, "): ", msg));
  }
  // A construct this backend cannot compile yet (an intrinsic it has no lowering for): UNIMPLEMENTED,
  // naming the construct and where it is written, rather than a complaint about the input.
  void FailUnimplemented(const std::string& msg, const ir::Span& where) {
    if (!status_.ok()) return;
    std::string at = where.defined() ? absl::StrCat(" at ", where.ToString()) : "";
    status_ = absl::UnimplementedError(absl::StrCat(BackendName(), " (", symbol_, "): ", msg, at));
  }
  std::string Indent() const { return std::string(2 * indent_, ' '); }
  void Line(const std::string& s) { body_ << Indent() << s << "\n"; }

  // ---------------- expressions ----------------
  std::string VisitExprDefault_(const Object* op) override {
    Fail(absl::StrCat("unsupported expression ", op->type_key()));
    return "0";
  }
  std::string VisitExpr_(const VarNode* op) override {
    if (op->dtype.is_vector()) return LaneName(op, lane_);
    return Name(op);
  }
  std::string VisitExpr_(const SizeVarNode* op) override { return Name(op); }
  std::string VisitExpr_(const IntImmNode* op) override { return IntLiteral(op->dtype, op->value); }
  std::string VisitExpr_(const FloatImmNode* op) override { return FloatLiteral(op->dtype, op->value); }
  std::string VisitExpr_(const StringImmNode* op) override { return Quote(op->value); }
  std::string VisitExpr_(const CastNode* op) override {
    DataType to = op->dtype.element_of();
    std::string v = VisitExpr(op->value);
    if (to.is_bool()) return absl::StrCat("((", v, ") != 0)");
    if (to.is_bfloat()) return absl::StrCat("kiln_bf16_to_f32(kiln_f32_to_bf16((float)(", v, ")))");
    return absl::StrCat("((", CType(to), ")(", v, "))");
  }

  std::string Arith(const char* op, const BinaryNode* n) {
    DataType t = n->dtype.element_of();
    std::string a = VisitExpr(n->a), b = VisitExpr(n->b);
    if (t.is_int() && std::string(op) != "/" && std::string(op) != "%") {
      std::string u = Unsigned(t);
      return absl::StrCat("((", CType(t), ")((", u, ")(", a, ") ", op, " (", u, ")(", b, ")))");
    }
    if (t.is_bfloat()) return absl::StrCat("kiln_bf16_to_f32(kiln_f32_to_bf16((", a, ") ", op, " (", b, ")))");
    return absl::StrCat("((", CType(t), ")((", a, ") ", op, " (", b, ")))");
  }
  std::string VisitExpr_(const AddNode* op) override { return Arith("+", op); }
  std::string VisitExpr_(const SubNode* op) override { return Arith("-", op); }
  std::string VisitExpr_(const MulNode* op) override { return Arith("*", op); }
  std::string VisitExpr_(const DivNode* op) override { return Arith("/", op); }
  std::string VisitExpr_(const ModNode* op) override {
    if (op->dtype.is_floating()) return MathCall("fmod", op->dtype, {op->a, op->b});
    return Arith("%", op);
  }
  std::string VisitExpr_(const FloorDivNode* op) override {
    DataType t = op->dtype.element_of();
    if (t.is_floating()) {
      return absl::StrCat("((", CType(t), ")", MathName("floor", t), "((", VisitExpr(op->a), ") / (", VisitExpr(op->b), ")))");
    }
    return absl::StrCat("kiln_floordiv_", Suffix(t), "(", VisitExpr(op->a), ", ", VisitExpr(op->b), ")");
  }
  std::string VisitExpr_(const FloorModNode* op) override {
    DataType t = op->dtype.element_of();
    if (t.is_floating()) {
      std::string a = VisitExpr(op->a), b = VisitExpr(op->b);
      return absl::StrCat("((", CType(t), ")((", a, ") - ", MathName("floor", t), "((", a, ") / (", b, ")) * (", b, ")))");
    }
    return absl::StrCat("kiln_floormod_", Suffix(t), "(", VisitExpr(op->a), ", ", VisitExpr(op->b), ")");
  }
  std::string MinMax(const char* which, const BinaryNode* op) {
    DataType t = op->dtype.element_of();
    std::string suffix = t.is_bfloat() ? "float" : Suffix(t);
    return absl::StrCat("kiln_", which, "_", suffix, "(", VisitExpr(op->a), ", ", VisitExpr(op->b), ")");
  }
  std::string VisitExpr_(const MinNode* op) override { return MinMax("min", op); }
  std::string VisitExpr_(const MaxNode* op) override { return MinMax("max", op); }
  std::string Cmp(const char* op, const BinaryNode* n) {
    return absl::StrCat("((", VisitExpr(n->a), ") ", op, " (", VisitExpr(n->b), "))");
  }
  std::string VisitExpr_(const EQNode* op) override { return Cmp("==", op); }
  std::string VisitExpr_(const NENode* op) override { return Cmp("!=", op); }
  std::string VisitExpr_(const LTNode* op) override { return Cmp("<", op); }
  std::string VisitExpr_(const LENode* op) override { return Cmp("<=", op); }
  std::string VisitExpr_(const GTNode* op) override { return Cmp(">", op); }
  std::string VisitExpr_(const GENode* op) override { return Cmp(">=", op); }
  std::string VisitExpr_(const AndNode* op) override { return Cmp("&&", op); }
  std::string VisitExpr_(const OrNode* op) override { return Cmp("||", op); }
  std::string VisitExpr_(const NotNode* op) override { return absl::StrCat("(!(", VisitExpr(op->a), "))"); }
  std::string VisitExpr_(const SelectNode* op) override {
    return absl::StrCat("((", VisitExpr(op->condition), ") ? (", VisitExpr(op->true_value), ") : (",
                        VisitExpr(op->false_value), "))");
  }
  std::string VisitExpr_(const BufferLoadNode* op) override {
    if (op->indices.size() != 1) {
      Fail(absl::StrCat("buffer ", op->buffer->name, " is not flattened"));
      return "0";
    }
    DataType t = op->buffer->dtype;
    std::string access = absl::StrCat("((", PointerQualifier(op->buffer->data.get()), StorageType(t), "*)",
                                      Name(op->buffer->data.get()), ")[",
                                      VisitExpr(op->indices[0]), "]");
    if (t.is_bfloat()) return absl::StrCat("kiln_bf16_to_f32(", access, ")");
    return access;
  }
  std::string VisitExpr_(const RampNode* op) override {
    std::string base = VisitExpr(op->base), stride = VisitExpr(op->stride);
    DataType t = op->dtype.element_of();
    return absl::StrCat("((", CType(t), ")((", base, ") + (", stride, ") * ", lane_, "))");
  }
  std::string VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }
  std::string VisitExpr_(const ShuffleNode* op) override {
    const auto* idx = op->indices[lane_].as<IntImmNode>();
    if (idx == nullptr) {
      Fail("Shuffle with non-constant indices");
      return "0";
    }
    int64_t k = idx->value;
    for (const PrimExpr& v : op->vectors) {
      int lanes = v.dtype().lanes();
      if (k < lanes) {
        int saved = lane_;
        lane_ = static_cast<int>(k);
        std::string s = VisitExpr(v);
        lane_ = saved;
        return s;
      }
      k -= lanes;
    }
    Fail("Shuffle index out of range");
    return "0";
  }
  std::string VisitExpr_(const LetNode* op) override {
    // Lets were hoisted before the statement (see HoistLets); here the var is in scope.
    return VisitExpr(op->body);
  }
  std::string VisitExpr_(const CallNode* op) override;

  std::string MathCall(const std::string& name, DataType t, const std::vector<PrimExpr>& args) {
    DataType e = t.element_of();
    std::string fn = MathName(name, e);
    std::vector<std::string> a;
    for (const PrimExpr& x : args) {
      a.push_back(e.bits() == 64 ? VisitExpr(x) : absl::StrCat("(float)(", VisitExpr(x), ")"));
    }
    std::string call = absl::StrCat(fn, "(", absl::StrJoin(a, ", "), ")");
    if (e.is_bfloat()) return absl::StrCat("kiln_bf16_to_f32(kiln_f32_to_bf16(", call, "))");
    return absl::StrCat("((", CType(e), ")", call, ")");
  }

  std::string Quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 32 || c >= 127) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\%03o", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  }

  std::string LaneName(const VarNode* v, int lane) { return absl::StrCat(Name(v), "_l", lane); }

  // ---------------- statements ----------------
  void VisitStmtDefault_(const Object* op) override { Fail(absl::StrCat("unsupported statement ", op->type_key())); }

  // Declares the Let-bound vars of `e` (innermost first) so expressions can refer to them.
  void HoistLets(const PrimExpr& e) {
    struct Finder : StmtExprVisitor {
      std::vector<const LetNode*> lets;
      void VisitExpr_(const LetNode* op) override {
        VisitExpr(op->value);
        lets.push_back(op);
        VisitExpr(op->body);
      }
    } finder;
    finder.VisitExpr(e);
    for (const LetNode* let : finder.lets) {
      if (let->var.dtype().is_vector()) {
        DeclareVectorVar(let->var.get(), let->value);
      } else {
        Line(absl::StrCat(CType(let->var.dtype()), " ", Name(let->var.get()), " = ", VisitExpr(let->value), ";"));
      }
    }
  }
  void DeclareVectorVar(const VarNode* v, const PrimExpr& value) {
    int saved = lane_;
    for (int l = 0; l < v->dtype.lanes(); ++l) {
      lane_ = l;
      Line(absl::StrCat(CType(v->dtype.element_of()), " ", LaneName(v, l), " = ", VisitExpr(value), ";"));
    }
    lane_ = saved;
  }

  void VisitStmt_(const LetStmtNode* op) override {
    HoistLets(op->value);
    Line("{");
    ++indent_;
    if (op->var.dtype().is_vector()) {
      DeclareVectorVar(op->var.get(), op->value);
    } else {
      Line(absl::StrCat(CType(op->var.dtype()), " ", Name(op->var.get()), " = ", VisitExpr(op->value), ";"));
      Line(absl::StrCat("(void)", Name(op->var.get()), ";"));
    }
    VisitStmt(op->body);
    --indent_;
    Line("}");
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    if (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") {
      Fail("GPU thread bindings reached the C backend; this target runs on the CPU");
      return;
    }
    VisitStmt(op->body);
  }
  void VisitStmt_(const AssertStmtNode* op) override {
    HoistLets(op->condition);
    std::string msg = op->error_kind + ": ";
    for (const String& part : op->message_parts) msg += part.str();
    Line(absl::StrCat("if (!(", VisitExpr(op->condition), ")) { rc = kiln_fail(result, ", Quote(msg), "); goto kiln_exit; }"));
    if (op->body.defined()) VisitStmt(op->body);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (op->indices.size() != 1) {
      Fail(absl::StrCat("buffer ", op->buffer->name, " is not flattened"));
      return;
    }
    HoistLets(op->value);
    HoistLets(op->indices[0]);
    DataType t = op->buffer->dtype;
    int lanes = op->value.dtype().lanes();
    for (int l = 0; l < lanes; ++l) {
      lane_ = l;
      std::string value = VisitExpr(op->value);
      if (t.is_bfloat()) value = absl::StrCat("kiln_f32_to_bf16(", value, ")");
      Line(absl::StrCat("((", PointerQualifier(op->buffer->data.get()), StorageType(t), "*)", Name(op->buffer->data.get()),
                        ")[", VisitExpr(op->indices[0]),
                        "] = ", value, ";"));
    }
    lane_ = 0;
  }
  void VisitStmt_(const ForNode* op) override {
    std::string v = Name(op->loop_var.get());
    std::string t = CType(op->loop_var.dtype());
    HoistLets(op->min);
    HoistLets(op->extent);
    if (op->kind == ForKind::kParallel && !in_parallel_) {
      EmitParallel(op);
      return;
    }
    std::string end = v + "_end";
    std::string step = op->step.defined() ? VisitExpr(op->step) : "1";
    Line(absl::StrCat("for (", t, " ", v, " = ", VisitExpr(op->min), ", ", end, " = (", t, ")(", v, " + ",
                      VisitExpr(op->extent), "); ", v, " < ", end, "; ", v, " += ", step, ") {"));
    ++indent_;
    VisitStmt(op->body);
    --indent_;
    Line("}");
  }

  // Outlines the loop body into a KilnParallelBody; the captured variables travel in a struct.
  void EmitParallel(const ForNode* op) {
    if (!packed_) {
      Fail("parallel loops are only supported in packed entries");
      return;
    }
    std::vector<Var> captured = tir::FreeVars(GetRef<Stmt>(op));
    std::string id = absl::StrCat(fname_, "_par", outlined_++);
    std::string v = Name(op->loop_var.get());
    std::string t = CType(op->loop_var.dtype());
    std::ostringstream decl;
    decl << "typedef struct {";
    for (const Var& x : captured) decl << " " << CType(x.dtype()) << " " << Name(x.get()) << ";";
    decl << " void* self; kiln_Any* result; } " << id << "_closure;\n";
    decl << "static int32_t " << id << "(int64_t begin, int64_t end, void* closure_) {\n";
    decl << "  " << id << "_closure* c = (" << id << "_closure*)closure_;\n";
    decl << "  kiln_Arena arena_storage = {0};\n  kiln_Arena* arena = &arena_storage;\n";
    decl << "  void* self = c->self;\n  (void)self;\n  kiln_Any* result = c->result;\n";
    for (const Var& x : captured) {
      decl << "  " << CType(x.dtype()) << " " << Name(x.get()) << " = c->" << Name(x.get()) << ";\n";
    }
    decl << "  int32_t rc = 0;\n";
    decl << "  for (int64_t it = begin; it < end; ++it) {\n";
    // Generate the body into the outlined function, then restore the caller's buffer.
    std::string saved_body = body_.str();
    int saved_indent = indent_;
    body_.str("");
    body_.clear();
    indent_ = 2;
    in_parallel_ = true;
    Line(absl::StrCat(t, " ", v, " = (", t, ")(", VisitExpr(op->min), " + it);"));
    VisitStmt(op->body);
    in_parallel_ = false;
    decl << body_.str();
    body_.str("");
    body_.clear();
    body_ << saved_body;
    indent_ = saved_indent;
    decl << "  }\nkiln_exit:\n  kiln_arena_free(arena);\n  return rc;\n}\n\n";
    outlined_src_ << decl.str();
    // The call site.
    Line("{");
    ++indent_;
    std::string init;
    for (const Var& x : captured) init += Name(x.get()) + ", ";
    Line(absl::StrCat(id, "_closure c = {", init, "self, result};"));
    Line(absl::StrCat("int64_t n = (int64_t)(", VisitExpr(op->extent), ");"));
    Line("kiln_Env* env = (kiln_Env*)self;");
    Line(absl::StrCat("rc = (env && env->parallel_for) ? env->parallel_for(env->pool, n, ", id, ", &c) : ", id,
                      "(0, n, &c);"));
    Line("if (rc != 0) goto kiln_exit;");
    --indent_;
    Line("}");
  }

  void VisitStmt_(const WhileNode* op) override {
    HoistLets(op->condition);
    Line(absl::StrCat("while (", VisitExpr(op->condition), ") {"));
    ++indent_;
    VisitStmt(op->body);
    --indent_;
    Line("}");
  }
  void VisitStmt_(const BreakNode*) override { Line("break;"); }
  void VisitStmt_(const ContinueNode*) override { Line("continue;"); }
  void VisitStmt_(const IfThenElseNode* op) override {
    HoistLets(op->condition);
    // The branch to a failed check of checked mode is unlikely.
    const auto* eval = op->then_case.as<EvaluateNode>();
    if (eval != nullptr && driver::FailedCheck(eval) != nullptr && !op->else_case.defined()) {
      Line(absl::StrCat("if (__builtin_expect(!!(", VisitExpr(op->condition), "), 0)) {"));
    } else {
      Line(absl::StrCat("if (", VisitExpr(op->condition), ") {"));
    }
    ++indent_;
    VisitStmt(op->then_case);
    --indent_;
    if (op->else_case.defined()) {
      Line("} else {");
      ++indent_;
      VisitStmt(op->else_case);
      --indent_;
    }
    Line("}");
  }
  void VisitStmt_(const SeqStmtNode* op) override {
    for (const Stmt& s : op->seq) VisitStmt(s);
  }
  void VisitStmt_(const EvaluateNode* op) override {
    if (driver::IsNoOpEvaluate(op)) return;
    // Evaluate(tirx.ret(v)) returns v; any other call is evaluated for its effect.
    if (PrimExpr v = driver::ReturnedValue(op); v.defined()) return EmitReturn(v);
    if (const CallNode* check = driver::FailedCheck(op)) return EmitFailedCheck(check);
    HoistLets(op->value);
    Line(absl::StrCat("(void)(", VisitExpr(op->value), ");"));
  }
  // A failed check of checked mode: the prelude's kiln_check_failure formats the message into
  // malloc'ed memory of a size known here (the text plus at most 20 characters per integer).
  void EmitFailedCheck(const CallNode* op) {
    std::string format;
    std::vector<std::string> values;
    for (const PrimExpr& part : op->args) {
      if (const auto* s = part.as<StringImmNode>()) {
        for (char c : s->value) format += c == '%' ? std::string("%%") : std::string(1, c);
        continue;
      }
      if (!part.dtype().is_scalar() || !part.dtype().is_int_or_bool()) {
        Fail(absl::StrCat("T.check_failure takes strings and integer scalars, not ", part.dtype().ToString()));
        return;
      }
      HoistLets(part);
      bool is_unsigned = part.dtype().is_uint();
      format += is_unsigned ? "%llu" : "%lld";
      values.push_back(absl::StrCat(is_unsigned ? "(unsigned long long)(" : "(long long)(", VisitExpr(part), ")"));
    }
    size_t size = format.size() + 21 * values.size() + 1;
    std::string args = values.empty() ? "" : absl::StrCat(", ", absl::StrJoin(values, ", "));
    Line(absl::StrCat("{ rc = kiln_check_failure(result, ", size, ", ", Quote(format), args, "); goto kiln_exit; }"));
  }
  void EmitReturn(const PrimExpr& v) {
    if (in_parallel_) {
      Fail("return inside a parallel loop");
      return;
    }
    HoistLets(v);
    if (!packed_) {
      Line(absl::StrCat("return (", CType(ret_type_), ")(", VisitExpr(v), ");"));
      return;
    }
    DataType t = v.dtype();
    if (t.is_floating()) {
      Line(absl::StrCat("{ result->type_index = 3; result->u.v_float64 = (double)(", VisitExpr(v), "); goto kiln_exit; }"));
    } else if (t.is_bool()) {
      Line(absl::StrCat("{ result->type_index = 2; result->u.v_int64 = (int64_t)(", VisitExpr(v), "); goto kiln_exit; }"));
    } else {
      Line(absl::StrCat("{ result->type_index = 1; result->u.v_int64 = (int64_t)(", VisitExpr(v), "); goto kiln_exit; }"));
    }
  }
  void VisitStmt_(const AllocBufferNode* op) override {
    const Buffer& b = op->buffer;
    std::string name = Name(b->data.get());
    int64_t bytes = b->dtype.bits() == 1 ? 1 : b->dtype.StorageBytes();
    bool constant = true;
    std::string size_expr = absl::StrCat(bytes);
    for (const PrimExpr& d : b->shape) {
      if (const auto* imm = d.as<IntImmNode>()) {
        bytes *= imm->value;
      } else {
        constant = false;
      }
      HoistLets(d);
      size_expr = absl::StrCat(size_expr, " * (int64_t)(", VisitExpr(d), ")");
    }
    Line("{");
    ++indent_;
    if (constant && bytes <= kStackLimit) {
      Line(absl::StrCat("_Alignas(64) uint8_t ", name, "_storage[", std::max<int64_t>(bytes, 1), "];"));
      Line(absl::StrCat("void* ", name, " = ", name, "_storage;"));
      VisitStmt(op->body);
    } else {
      Line(absl::StrCat("void* ", name, " = kiln_arena_alloc(arena, ", size_expr, ");"));
      Line(absl::StrCat("if (", name, " == NULL) { rc = kiln_fail(result, \"MemoryError: cannot allocate ", b->name,
                        "\"); goto kiln_exit; }"));
      VisitStmt(op->body);
      Line("kiln_arena_pop(arena);");
    }
    --indent_;
    Line("}");
  }
  void VisitStmt_(const DeclBufferNode* op) override { VisitStmt(op->body); }

  std::unordered_map<const VarNode*, std::string> names_;
  std::unordered_set<std::string> used_names_;
  std::map<std::string, const PrimFuncNode*> funcs_;
  std::ostringstream body_, outlined_src_, externs_, helpers_;
  std::set<std::string> declared_externs_;
  std::string fname_;   // the C identifier of the function being printed
  std::string symbol_;  // its symbol (the name in messages)
  DataType ret_type_;
  bool packed_ = false;
  bool in_parallel_ = false;
  int indent_ = 1;
  int lane_ = 0;
  int outlined_ = 0;
  absl::Status status_;
};

}  // namespace kiln::codegen::csrc

#endif  // KILN_COMPILER_TARGET_SOURCE_C_C_PRINTER_H_
