// Internal to the TVMScript parser (compiler/script/parser): the values the evaluator works with
// and the Parser class shared by parser.cc (module level, expressions), the parse_tir*.cc and
// parse_relax*.cc files and parse_tile.cc (the T.* / R.* call handlers are declared in handlers.h).
// Not a public interface: use compiler/script/script.h.
//
// Errors inside the parser are thrown as ParseError and caught at statement boundaries, where the
// diagnostic is recorded and parsing resumes with the next statement (names the failed statement
// would have defined are "poisoned" so their later uses do not cascade into more errors). The
// exception never leaves the parser: ParseScript returns absl::Status like everything else.
#ifndef KILN_COMPILER_SCRIPT_PARSER_PARSER_IMPL_H_
#define KILN_COMPILER_SCRIPT_PARSER_PARSER_IMPL_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/ir/diagnostic.h"
#include "compiler/ir/ir.h"
#include "compiler/script/builder/relax_builder.h"
#include "compiler/script/builder/tir_builder.h"
#include "compiler/script/doc/doc.h"

namespace kiln::script::parser {

struct ParseError {
  ir::Span span;
  std::string message;
  bool silent = false;  // a consequence of an earlier, already reported error
};

struct LoopSpec {
  ir::ForKind kind = ir::ForKind::kSerial;
  ir::PrimExpr min, extent, step;
  std::string thread;  // kThreadBinding
  ir::Map<ir::String, ir::ObjectRef> annotations;
};

// A value of the Python-level evaluation: Python numbers/strings/containers, IR objects, and names
// of TVMScript functions or namespaces (kName: "T.axis.remap", "R.nn", "range", ...).
struct Value {
  enum class Kind {
    kNone, kBool, kInt, kFloat, kStr, kPrim, kRelax, kType, kBuffer, kRegion, kTuple, kList,
    kDict, kName, kSlice, kLoops, kIterVar, kModule, kPoison,
    kLambda,   // a Python lambda, evaluated by the function it is passed to (T.comm_reducer)
    kReducer,  // obj: a CommReducer or an IndexMap (TIR objects that are attribute values)
    kLayout,      // obj: a TileLayout or ComposeLayout (T.TileLayout(...), T.ComposeLayout(...))
    kLayoutSpec,  // obj: the TileLayout that `T.S[...] + T.R[...] + offset` describes so far
    kAxisTerms,   // `v @ Axis.laneid + 512`: keys (axis names, kStr) and items (their values)
    kMacro,       // a module-level @T.macro: `macro` is its definition, `b` hygienic, `i` the
                  // number of scopes visible where it was defined (parse_macro.cc)
  };
  Kind kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;             // kStr, kName
  ir::ObjectRef obj;         // kPrim, kRelax, kType, kBuffer, kRegion, kIterVar
  std::vector<Value> items;  // kTuple, kList, kDict (values), kSlice (lower, upper, step)
  std::vector<Value> keys;   // kDict
  std::vector<LoopSpec> loops;  // kLoops: one per loop variable
  bool fresh_var = false;    // kPrim/kRelax: a variable made by T.int32() / T.handle() / T.var(...)
  bool meta = false;         // T.meta_var(x) / I.meta_var(x): an assignment names x itself, binds nothing
  const doc::Expr* lambda = nullptr;  // kLambda: the lambda node, owned by the doc tree being parsed
  const doc::Stmt* macro = nullptr;   // kMacro: the function definition, owned likewise
  ir::Span span;

  static Value None() { return Value(); }
  static Value Of(Kind k) { Value v; v.kind = k; return v; }
  static Value Int(int64_t x) { Value v; v.kind = Kind::kInt; v.i = x; return v; }
  static Value Float(double x) { Value v; v.kind = Kind::kFloat; v.f = x; return v; }
  static Value Bool(bool x) { Value v; v.kind = Kind::kBool; v.b = x; return v; }
  static Value Str(std::string x) { Value v; v.kind = Kind::kStr; v.s = std::move(x); return v; }
  static Value Name(std::string x) { Value v; v.kind = Kind::kName; v.s = std::move(x); return v; }
  static Value Obj(Kind k, ir::ObjectRef o) { Value v; v.kind = k; v.obj = std::move(o); return v; }
  static Value Seq(Kind k, std::vector<Value> items) { Value v; v.kind = k; v.items = std::move(items); return v; }

  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool; }
  bool is_seq() const { return kind == Kind::kTuple || kind == Kind::kList; }
};

// The short name every parser file uses for value kinds (K::kPrim, K::kBuffer, ...).
using K = Value::Kind;

const char* KindName(Value::Kind k);

// The full dtype name for TVM's shorthand aliases ("f32" -> "float32"); other names unchanged.
std::string CanonicalDTypeName(const std::string& name);

// Positional and keyword arguments of a call, with their source positions.
struct CallArgs {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  ir::Span span;       // the whole call
  ir::Span func_span;  // the callee expression
};

class Parser {
 public:
  Parser(std::string source, std::string filename, ir::DiagnosticList* diags)
      : source_(std::move(source)), filename_(std::make_shared<const std::string>(std::move(filename))), diags_(diags) {}

  // Parses the doc module; returns the selected top-level definition (IRModule, PrimFunc or Relax
  // Function) or a null ref when errors were reported.
  ir::ObjectRef ParseModule(const doc::Module& m, const std::string& select_name);

  // The most TIR scopes one function may nest (ParseOptions::max_scope_depth).
  void set_max_scope_depth(int n) { max_scope_depth_ = n; }
  // The default of check_well_formed= for decorators that do not set it.
  void set_check_well_formed(bool on) { check_well_formed_default_ = check_well_formed_ = on; }
  // Whether the well-formed check was off for some definition (a decorator or the default).
  bool well_formed_check_off() const { return well_formed_check_off_; }

  // ---- shared helpers (parser.cc)
  ir::Span SpanOf(const doc::Pos& p) const;
  [[noreturn]] void Fail(const ir::Span& span, std::string message) const;
  [[noreturn]] void Fail(const doc::Pos& p, std::string message) const { Fail(SpanOf(p), std::move(message)); }
  void Report(const ParseError& e);
  void Warn(const ir::Span& span, std::string message);

  Value Eval(const doc::ExprPtr& e);
  void EvalComprehension(const doc::Expr& e, size_t gen, std::vector<Value>* out);
  Value EvalName(const doc::Expr& e);
  std::string FormatFieldValue(const Value& v, const std::string& conversion, const doc::Expr& field);
  Value EvalAttribute(const doc::Expr& e);
  Value EvalSubscript(const doc::Expr& e);
  // One element of a tuple, list or subscript: `*v` adds v's items (v itself when it is one
  // expression, so that rank-1 code written for any rank works).
  void EvalItem(const doc::ExprPtr& x, std::vector<Value>* items);
  Value EvalCall(const doc::Expr& e);
  Value EvalBinOp(const doc::Expr& e);
  Value EvalUnary(const doc::Expr& e);
  Value EvalBoolOp(const doc::Expr& e);
  Value EvalCompare(const doc::Expr& e);
  Value CallName(const std::string& path, CallArgs& a);

  // Conversions (raise ParseError at `span` with a clear message).
  ir::PrimExpr ToPrim(const Value& v, const ir::Span& span) const;
  ir::DataType ToDType(const Value& v, const ir::Span& span) const;
  int64_t ToInt(const Value& v, const ir::Span& span) const;
  std::string ToStr(const Value& v, const ir::Span& span) const;
  bool ToBool(const Value& v, const ir::Span& span) const;
  std::vector<Value> ToSeq(const Value& v, const ir::Span& span) const;
  ir::ObjectRef ToAttrValue(const Value& v, const ir::Span& span) const;
  ir::Map<ir::String, ir::ObjectRef> ToAttrMap(const Value& v, const ir::Span& span) const;
  ir::Array<ir::PrimExpr> ToPrimArray(const Value& v, const ir::Span& span) const;
  // Evaluates a Python lambda (T.comm_reducer, T.index_map) with fresh parameters of the given
  // dtypes; returns its result (a tuple gives several values) and the parameters in `params`.
  ir::Array<ir::PrimExpr> EvalLambda(const Value& fn, const std::vector<ir::DataType>& param_dtypes,
                                     const std::string& what, ir::Array<ir::Var>* params, const ir::Span& span);
  // A.vload(...) / A.vstore(...) on a buffer.
  Value BufferAccessPtr(const ir::Buffer& b, CallArgs& a);
  Value CallBufferMethod(const ir::Buffer& b, const std::string& method, CallArgs& a);
  // T.index_map's lambda (also accepted bare, as R.layout_transform's index_map=).
  ir::IndexMap LambdaToIndexMap(const Value& fn, ir::DataType index_dtype, const ir::Span& span);
  // An integer literal as a constant of `dtype`; an expression as it is.
  ir::PrimExpr ToPrimAs(ir::DataType dtype, const Value& v, const ir::Span& span) const;
  // T.serial(..., unroll=True|False|N): the loop annotation TVM's builder adds for it.
  void AddUnrollAnnotation(const Value& v, ir::Map<ir::String, ir::ObjectRef>* annotations, const ir::Span& span) const;
  // T.serial(..., dtype="int64"): converts the loop bounds to the loop variable's dtype.
  void RetypeLoop(ir::DataType dtype, LoopSpec* loop, const ir::Span& span) const;

  // ---- variable table: a stack of frames of name -> value
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }
  void Define(const std::string& name, Value v) { scopes_.back()[name] = std::move(v); }
  const Value* Lookup(const std::string& name) const;
  void Poison(const doc::ExprPtr& target);
  // Fails at `target` when a tuple assignment names one variable twice (`vi, vi = ...`).
  void CheckDistinctTargets(const doc::Expr& target) const;

  // ---- TIR (parse_tir.cc; statements in parse_tir_stmt.cc, T.* calls in the parse_tir_*.cc families)
  ir::PrimFunc ParsePrimFunc(const doc::Stmt& def, const std::string& name, const CallArgs* deco);
  void ParseTIRBody(const std::vector<doc::StmtPtr>& body);
  // Whether a type annotation spells a shape dimension as a string (only signatures may).
  bool HasStringShape(const doc::Expr& e) const;
  // Fails at enclosing_stmt_ for a statement kind TVM's parser has no visitor for.
  void RejectUnvisitedStmt(const doc::Stmt& s) const;
  void ParseTIRStmt(const doc::Stmt& s);
  void TIRAssign(const doc::Stmt& s);
  void TIRAnnAssign(const doc::Stmt& s);
  void TIRAugAssign(const doc::Stmt& s);
  void TIRFor(const doc::Stmt& s);
  void TIRUnrolledFor(const doc::Stmt& s, const Value& items);
  void TIRWith(const doc::Stmt& s);
  // with WarpRole(warp_id, 1, regs=48): / WarpgroupRole (parse_tile_roles.cc).
  void TIRWarpRole(const doc::Stmt& s, const std::string& name);
  // with T.tile.compose_op(...): a body of tile primitive calls (parse_tile_prims.cc).
  void TIRComposeOp(const doc::Stmt& s);
  void TIRExprStmt(const doc::Stmt& s);
  void BindTIRTarget(const doc::ExprPtr& target, const Value& v, const ir::Span& span);
  // An s_tir sblock without T.reads or T.writes gets them inferred, which fails where its body
  // uses a buffer's data pointer directly (`own`: data of the block's own buffers).
  void CheckNoOpaqueAccess(const ir::Stmt& realize, const std::unordered_set<const ir::Object*>& own,
                           const std::string& block_name);
  void StoreTo(const doc::Expr& target, const Value& value, const ir::Span& span);
  Value CallT(const std::string& name, CallArgs& a);
  // Rewrites the arguments of T.<name> the way TVM's builder function does before the call is
  // built (buffers passed to packed calls, the T.ptx_legacy.* argument forms, ...).
  void NormalizeIntrinsicArgs(const std::string& name, CallArgs& a);
  Value CallPtx(const std::string& path, CallArgs& a);  // T.ptx.<path>(...)
  void CheckPtxOperands(const std::string& family, const std::vector<std::string>& tokens,
                        const std::vector<Value>& operands, const ir::Array<ir::PrimExpr>& args,
                        const std::vector<std::string>& flags, const ir::Span& span);
  // Tile layouts (parse_tile.cc): T.S[...] / T.R[...] (kind "S" or "R"), and the `+` / `@` that
  // combine layout specs, axis-bound values and offsets (false when neither operand is one).
  Value LayoutSpec(const std::string& kind, const std::vector<Value>& idx, bool tuple_index, const ir::Span& span);
  bool LayoutBinOp(const std::string& op, const Value& a, const Value& b, const ir::Span& span, Value* out);
  // A buffer's layout= (None, "default", a layout, or a Trainium "PF"-style annotation) into
  // BufferNode::layout / no_layout, the way TVM's builder resolves it.
  void SetBufferLayout(const Value& v, ir::BufferNode* n, const ir::Span& span);
  // A.view(*shape, layout=...): a T.decl_buffer over A's storage, as TVM's Buffer.view builds it.
  Value BufferView(const ir::Buffer& b, CallArgs& a);
  Value BufferPtrTo(const ir::Buffer& b, CallArgs& a);  // A.ptr_to([i, j]) = T.address_of(A[i, j])
  // Derived views (parse_tile_views.cc), each a T.decl_buffer over A's storage as TVM builds it.
  // The layout a buffer has (its default where it has none of its own), undefined for layout=None.
  ir::ObjectRef EffectiveLayout(const ir::Buffer& b);
  // A T.decl_buffer over b's storage; undefined elem_offset / null dtype keep b's; addr_offset
  // moves a tmem buffer's allocated_addr.
  Value RedeclView(const ir::Buffer& b, std::vector<Value> shape, Value layout, const ir::PrimExpr& elem_offset,
                   const ir::DataType* dtype, const ir::PrimExpr& addr_offset, const CallArgs& a);
  Value ReshapeView(const ir::Buffer& b, std::vector<Value> shape, const CallArgs& a);  // A.view(*shape)
  Value BufferViewDType(const ir::Buffer& b, const ir::DataType& dtype, const CallArgs& a);  // A.view("float32")
  Value BufferLocal(const ir::Buffer& b, CallArgs& a);
  Value BufferPermute(const ir::Buffer& b, const std::vector<int64_t>& dims, const CallArgs& a);
  Value BufferRearrange(const ir::Buffer& b, CallArgs& a);
  Value BufferSub(const ir::Buffer& b, const std::vector<Value>& idx, const ir::Span& span);  // A.sub[...]
  Value BufferTile(const ir::Buffer& b, const Value& specs, const std::vector<Value>& picks, const ir::Span& span);
  Value ViewDrop(const ir::Buffer& b, size_t dim, const ir::PrimExpr& index, const CallArgs& a);
  Value ViewNarrow(const ir::Buffer& b, size_t dim, const ir::PrimExpr& start, const ir::PrimExpr& length, const CallArgs& a);
  Value RebuildView(const ir::Buffer& b, std::vector<Value> shape, const ir::Array<ir::Iter>& shard,
                    const ir::TileLayout& grouped, const ir::ComposeLayoutNode* swizzle, ir::PrimExpr extra,
                    const CallArgs& a);
  Value BufferElemOffsetOf(const ir::Buffer& b, CallArgs& a);  // A.elem_offset_of([i, j])
  Value CallLayoutMethod(const ir::ObjectRef& layout, const std::string& method, CallArgs& a);  // l.storage()
  void TIRLocalArray(const std::string& name, const Value& ann, const ir::Span& span);  // x: T.f32[8]
  // `data_value` (T.decl_buffer only): where data= is a pointer expression rather than a
  // variable, the buffer gets a new data variable and *data_value the expression to bind it to.
  ir::Buffer MakeBuffer(const std::string& name, CallArgs& a, size_t first, const std::string& default_scope,
                        ir::PrimExpr* data_value = nullptr);
  ir::Type ParamAnnotationTIR(const Value& ann, const ir::Span& span, ir::Buffer* buffer, const std::string& name);
  Value LoadFromBuffer(const ir::Buffer& b, const std::vector<Value>& idx, const ir::Span& span);
  ir::Array<ir::PrimExpr> BufferIndices(const ir::Buffer& b, const std::vector<Value>& idx, const ir::Span& span, bool* has_slice, ir::Array<ir::Range>* region);

  // ---- Relax (parse_relax.cc)
  ir::relax::Function ParseRelaxFunc(const doc::Stmt& def, const std::string& name, const CallArgs* deco, bool top_level);
  ir::Type ParseRelaxSignature(const doc::Stmt& def);  // FuncType from annotations only (pre-pass)
  void ParseRelaxBody(const std::vector<doc::StmtPtr>& body, ir::Expr* result, const doc::Stmt** ret_stmt);
  void ParseRelaxStmt(const doc::Stmt& s, ir::Expr* result);
  // Binds a Python-level name in a Relax function; `n = T.int64()` reuses the signature's n.
  void DefineRelaxName(const std::string& name, const Value& v);
  void RelaxAssign(const doc::ExprPtr& target, const doc::ExprPtr& ann, const doc::ExprPtr& value, const doc::Stmt& s);
  void RelaxIf(const doc::Stmt& s);
  ir::Type ToRelaxType(const Value& v, const ir::Span& span);
  ir::Type RelaxReturnType(const doc::ExprPtr& returns);
  ir::Expr ToRelax(const Value& v, const ir::Span& span);
  Value CallR(const std::string& name, CallArgs& a);
  Value CallRelaxFunction(const ir::Expr& callee, CallArgs& a);
  ir::PrimExpr SymbolicDim(const Value& v, const ir::Span& span, ir::DataType dtype);
  ir::Var NewRelaxVar(const std::string& name, ir::Type ty, const ir::Span& span);

  // ---- module
  Value CallI(const std::string& name, CallArgs& a);
  Value DefineMacro(const doc::Stmt& def, const CallArgs& deco);
  Value ExpandMacro(const Value& macro, CallArgs& a);
  ir::IRModule ParseIRModule(const doc::Stmt& cls, const CallArgs& deco);

  std::string source_;
  std::shared_ptr<const std::string> filename_;
  ir::DiagnosticList* diags_;
  std::vector<std::unordered_map<std::string, Value>> scopes_;
  std::map<std::string, std::string> aliases_;  // local name -> "T" | "R" | "I" | "tvm"
  builder::TIRBuilder tir_;
  builder::RelaxBuilder relax_;
  ir::IRModule module_;        // the module being built (class body), or null
  std::string module_name_;    // the class name ("Module")
  std::map<std::string, ir::GlobalVar> gvars_;  // the class's functions, declared before parsing
  std::map<std::string, ir::DataType> tir_ret_;  // PrimFunc name -> its return dtype (TIR calls)
  std::string name_hint_;      // the assignment target a call's result will be bound to
  std::vector<std::string> name_hints_;  // the targets of a tuple assignment
  ir::Span prim_func_span_;    // the T.prim_func being parsed (errors TVM reports at the function)
  // The statement (or function def) whose body is being parsed: TVM's parser has no visitor for
  // `del`, `import` or `global`, and the error that raises surfaces at this enclosing statement.
  ir::Span enclosing_stmt_;
  int loop_depth_ = 0;         // enclosing TIR loops (for break / continue)
  int macro_depth_ = 0;        // macro expansions in progress (a recursive macro is an error)
  int max_scope_depth_ = 1000;
  std::unordered_map<const ir::Object*, ir::IterVar> thread_ivs_;  // launch_thread var -> IterVar
  std::unordered_map<const ir::Object*, ir::Range> loop_ranges_;   // loop var -> its range (axis.remap)
  int error_count_ = 0;
  int relax_depth_ = 0;        // > 0 while parsing a Relax function
  // False inside an @I.ir_module / @R.function with check_well_formed=False. TVM's parser then
  // gives an annotated binding of a call the annotation as its type without inferring it (its
  // well-formed check, which would re-infer and compare, is off).
  bool check_well_formed_ = true;
  bool check_well_formed_default_ = true;
  bool well_formed_check_off_ = false;
  // The value expression of the annotated binding being parsed, and whether the call being
  // dispatched is that expression (EvalCall sets it just before the callee runs).
  const doc::Expr* annotated_value_ = nullptr;
  bool defer_inference_ = false;
  std::vector<std::unordered_map<std::string, ir::Var>> symbolic_;  // per Relax function: "n" -> var
  // While a Relax signature's parameter annotations are read: the dims written as a bare name
  // ("n"), the only way a parameter introduces a symbolic variable (TVM's rule); null otherwise.
  const std::unordered_set<std::string>* param_dim_names_ = nullptr;
  std::vector<std::string> dataflow_outputs_;  // names listed in the open dataflow block's R.output
};

}  // namespace kiln::script::parser

#endif  // KILN_COMPILER_SCRIPT_PARSER_PARSER_IMPL_H_
