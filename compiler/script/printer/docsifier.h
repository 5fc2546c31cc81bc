// IRDocsifier: turns IR nodes into Doc nodes. It owns what printing needs to know across nodes:
// the names given to variables and buffers (unique among those in scope: two live `i`s print as
// `i` and `i_1`; a name is free again once its scope ends), the function frame that collects
// definitions of free symbolic variables (`n = T.int32()`) and `cls = Module`, and which dialect
// prefixes (I, T, R) the text uses, for the header comments.
//
// One instance prints one top-level node; it is not shared between threads.
// Implementation: docsifier.cc (names, scopes, module, attributes), tir_printer.cc,
// tile_printer.cc, relax_printer.cc.
#ifndef KILN_COMPILER_SCRIPT_PRINTER_DOCSIFIER_H_
#define KILN_COMPILER_SCRIPT_PRINTER_DOCSIFIER_H_

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/script/doc/doc.h"
#include "compiler/script/printer/doc_builder.h"
#include "compiler/script/printer/printer.h"

namespace kiln::script::printer {

// Whether any variable occurs in `e`.
bool ExprHasVar(const ir::PrimExpr& e);

class Docsifier {
 public:
  explicit Docsifier(const PrinterOptions& options) : options_(options) {}

  // Top-level entries: each returns a whole module (header comments included).
  doc::Module PrintTop(const ir::ObjectRef& node);

 private:
  // ---------------- names and scopes (docsifier.cc) ----------------
  // Gives `obj` a unique name derived from `hint`, valid until scope `scope` ends.
  ExprPtr DefineIn(size_t scope, const ir::Object* obj, const std::string& hint);
  ExprPtr Define(const ir::Object* obj, const std::string& hint) {
    return DefineIn(scopes_.size() - 1, obj, hint);
  }
  // Binds `obj` to an existing expression (a buffer's data var to `A.data`).
  void Alias(size_t scope, const ir::Object* obj, ExprPtr doc);
  // The expression for a defined object, or null.
  ExprPtr Lookup(const ir::Object* obj) const;
  void PushScope();
  void PopScope();
  std::string UniqueName(const std::string& hint);
  void ReleaseName(const std::string& name);

  // Dialect prefixes; using one records it for the header.
  ExprPtr T(const std::string& name);
  ExprPtr R(const std::string& name);
  ExprPtr I(const std::string& name);
  void AddHeader(doc::Module* m, bool module_header) const;

  // Attribute dictionaries (func_attr, sblock_attr, module_attrs, annotations) and their values.
  ExprPtr PrintAttrMap(const ir::Map<ir::String, ir::ObjectRef>& attrs,
                       const std::vector<std::string>& skip = {}, bool bare_numbers = false);
  ExprPtr PrintCommReducer(const ir::CommReducerNode* r);
  ExprPtr PrintIndexMap(const ir::IndexMapNode* m);
  // T.TileLayout(T.S[...] + T.R[...] + offset) / T.ComposeLayout(...) (tile_printer.cc).
  ExprPtr PrintLayout(const ir::ObjectRef& layout);
  ExprPtr PrintAttrValue(const ir::ObjectRef& value, bool bare_numbers);
  // A device mesh: "name[i]" when it is an entry of the module's global infos (inside functions),
  // else R.device_mesh(shape, range or ids).
  ExprPtr PrintDeviceMesh(const ir::GlobalInfoNode* mesh);
  doc::Module PrintModule(const ir::IRModule& mod);
  std::string FuncName(const ir::BaseFuncNode* f) const;

  // ---------------- TIR (tir_printer.cc) ----------------
  StmtPtr PrintPrimFunc(const ir::PrimFunc& f, const std::string& name);
  void PrintStmt(const ir::Stmt& s, std::vector<StmtPtr>* out);
  std::vector<StmtPtr> PrintScopedBody(const ir::Stmt& s);
  // Prints `body` as the whole body of a construct (see frame_body_).
  void PrintFrameBody(const ir::Stmt& body, std::vector<StmtPtr>* out);
  void PrintFor(const ir::ForNode* loop, std::vector<StmtPtr>* out);
  void PrintBlockRealize(const ir::SBlockRealizeNode* realize, std::vector<StmtPtr>* out);
  void PrintAttrStmt(const ir::AttrStmtNode* op, std::vector<StmtPtr>* out);
  // The name a launch_thread of `iv` refers to: its variable if already defined, or, for a
  // variable several launches share (or one without a domain, or of another dtype than the
  // extent), a new `T.env_thread` definition; nullptr otherwise.
  ExprPtr LaunchedThreadVar(const ir::IterVarNode* iv, const std::string& attr_key, ir::DataType extent_dtype);
  // `T.launch_thread(var, value)`, or `T.attr(var, key, value)` for an IterVar without a domain.
  ExprPtr ThreadAttrCall(const ir::IterVarNode* iv, const std::string& attr_key, ExprPtr var, ExprPtr value);
  bool PrintScopedFrame(const ir::Stmt& s, std::vector<StmtPtr>* out);
  void PrintAllocBuffer(const ir::AllocBufferNode* op, std::vector<StmtPtr>* out);
  ExprPtr PrintExpr(const ir::PrimExpr& e);
  ExprPtr PrintIntImm(const ir::IntImmNode* imm);
  ExprPtr PrintCall(const ir::CallNode* call);
  ExprPtr PrintVarUse(const ir::VarNode* v);
  ExprPtr VarCreation(const ir::VarNode* v);
  ExprPtr DtypeAnn(ir::DataType dtype);
  ExprPtr BufferRef(const ir::Buffer& b);
  ExprPtr DefineBuffer(size_t scope, const ir::Buffer& b);
  // callee(pre_args..., shape, dtype, kwargs...) for T.Buffer / T.match_buffer / T.alloc_buffer ...
  ExprPtr BufferCall(ExprPtr callee, std::vector<ExprPtr> pre_args, const ir::Buffer& b,
                     bool force_dtype, bool print_data, const std::string& implied_scope);
  // `A[0:4, j]`: an extent-1 dimension prints as its index, as TVM prints it. `keep_region` prints
  // a region whose every extent is 1 as slices, where `A[i, j]` would read back as a BufferLoad.
  ExprPtr PrintRegion(const ir::BufferRegion& r, bool keep_region = false);
  std::vector<ExprPtr> BufferIndices(const ir::Array<ir::PrimExpr>& indices);
  ExprPtr RangeEnd(const ir::PrimExpr& min, const ir::PrimExpr& extent);
  // A Ramp's or Broadcast's lanes: the constant, or T.vscale() * k for a scalable vector.
  ExprPtr PrintLanes(int lanes);
  bool IsLocalScalar(const ir::AllocBufferNode* op) const;
  // TIRx tile/device DSL (tile_printer.cc).
  void PrintScopeIdDef(const ir::ScopeIdDefStmtNode* op, std::vector<StmtPtr>* out);
  // TIRx tile primitives, T.tile.memset(...) (tile_prim_printer.cc).
  void PrintTilePrimitiveCall(const ir::TilePrimitiveCallNode* op, std::vector<StmtPtr>* out);
  Kwargs TileKeywords(const ir::TilePrimitiveCallNode* op);
  // T.hint("message", key=value) for a "tirx_hint" AttrStmt; null for any other AttrStmt.
  ExprPtr PrintHint(const ir::AttrStmtNode* op);

  // ---------------- Relax (relax_printer.cc) ----------------
  StmtPtr PrintRelaxFunc(const ir::relax::Function& f, const std::string& name);
  ExprPtr PrintType(const ir::Type& t);
  ExprPtr PrintShapeDim(const ir::PrimExpr& e);
  ExprPtr PrintTensorShape(const ir::Expr& shape);
  ExprPtr PrintRelaxExpr(const ir::Expr& e);
  ExprPtr PrintRelaxCall(const ir::relax::CallNode* call);
  ExprPtr PrintExternFunc(const ir::relax::ExternFuncNode* f);
  ExprPtr PrintConstant(const ir::relax::ConstantNode* c);
  ExprPtr PrintCallee(const ir::Expr& e);
  void PrintSeqBody(const ir::Expr& body, std::vector<StmtPtr>* out, ExprPtr* result);
  void PrintBinding(const ir::relax::Binding& b, std::vector<StmtPtr>* out, size_t var_scope);
  StmtPtr PrintIfBinding(const ir::Var& var, const ir::relax::IfNode* op, size_t var_scope);
  // A binding variable's annotation, or null where TVM leaves it out (its TypeAsAnn).
  ExprPtr BindingAnn(const ir::Var& var, const ir::Expr& value);

  const PrinterOptions& options_;

  // Object -> its expression (`i`, `A`, `A.data`, `cls.f`).
  std::unordered_map<const ir::Object*, ExprPtr> docs_;
  // Names in use, and for each name base the lowest suffix that may be free.
  std::unordered_set<std::string> used_names_;
  std::unordered_map<std::string, int> next_suffix_;
  struct Scope {
    std::vector<const ir::Object*> objects;
    std::vector<std::string> names;
  };
  std::vector<Scope> scopes_;

  // Function frame: where `n = T.int32()` and `cls = Module` go, and the scope they live in.
  std::vector<StmtPtr>* func_stmts_ = nullptr;
  size_t func_scope_ = 0;
  bool in_module_ = false;
  bool cls_defined_ = false;
  // The module's global infos once I.module_global_infos is printed: functions name device meshes
  // by their entry ("mesh[0]").
  ir::Map<ir::String, ir::Array<ir::GlobalInfo>> global_infos_;
  // Relax context: PrimExprs print ints bare; in the signature, dims with variables print as
  // strings.
  bool relax_ctx_ = false;
  bool signature_ = false;
  // The PrimFunc being printed has s_tir=True (its buffers default to no layout).
  bool s_tir_ = false;
  // Loop vars of the enclosing loops -> (min, extent), for the T.axis.remap sugar.
  std::unordered_map<const ir::Object*, std::pair<ir::PrimExpr, ir::PrimExpr>> loop_ranges_;
  // Thread variables of the current PrimFunc bound by several launch_thread attributes.
  std::unordered_set<const ir::Object*> shared_thread_vars_;
  // The Relax variables the top-level Relax function being printed refers to (for the bare
  // expression statement of an unused empty tuple).
  std::unordered_set<const ir::Object*> used_relax_vars_;
  // Buffers declared as local scalars (`x: T.int32`), which read and write without indices.
  std::unordered_set<const ir::Object*> local_scalars_;
  // The statement being printed as the whole body of a construct (function, loop, block, branch,
  // attr scope), not as an item of a statement sequence. TVM v0.26 prints an attr scope flat
  // (`T.attr(...)` / `x = T.launch_thread(...)` followed by its body) only there: its AsDocBody
  // grants concise scoping to no item of a sequence, which therefore prints as `with ...:`.
  const ir::Object* frame_body_ = nullptr;

  bool used_i_ = false, used_t_ = false, used_r_ = false;
};

}  // namespace kiln::script::printer

#endif  // KILN_COMPILER_SCRIPT_PRINTER_DOCSIFIER_H_
