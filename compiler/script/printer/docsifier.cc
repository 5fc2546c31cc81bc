// IRDocsifier: names and scopes, dialect prefixes and header, attribute values, modules, and the
// dispatch of a top-level node. TIR and Relax nodes are in tir_printer.cc and relax_printer.cc.
#include "compiler/script/printer/docsifier.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/script/doc/reader.h"
#include "compiler/tir/functor.h"

namespace kiln::script::printer {
namespace {

bool IsPythonKeyword(const std::string& s) {
  static const std::unordered_set<std::string>* const kKeywords = new std::unordered_set<std::string>{
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
      "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
      "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
      "try", "while", "with", "yield"};
  return kKeywords->count(s) > 0;
}

// A Python identifier close to `hint`.
std::string Sanitize(const std::string& hint) {
  if (hint.empty()) return "v";
  std::string s = hint;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
}

// Whether `f` is what the parser makes of an @I.pyfunc method `name` of a BasePyModule class
// (ParseIRModule), so that printing its python_source reads back to it: the attributes it sets
// and no others, and a source that is one such definition of that name.
bool IsPyFunc(const ir::relax::ExternFuncNode* f, const std::string& name) {
  const auto* is_pyfunc = f->attrs.Get(ir::String("is_pyfunc")).as<ir::IntImmNode>();
  const auto* kind = f->attrs.Get(ir::String("function_type")).as<ir::StringNode>();
  const auto* py_name = f->attrs.Get(ir::String("python_function_name")).as<ir::StringNode>();
  const auto* source = f->attrs.Get(ir::String("python_source")).as<ir::StringNode>();
  if (f->attrs.size() != 4 || is_pyfunc == nullptr || !is_pyfunc->dtype.is_bool() || is_pyfunc->value == 0 ||
      kind == nullptr || kind->value != "python" || py_name == nullptr || py_name->value != name ||
      source == nullptr || f->global_symbol != name || !f->ty.as<ir::PackedFuncTypeNode>()) {
    return false;
  }
  absl::StatusOr<doc::Module> m = doc::Read(source->value, "<python_source>");
  return m.ok() && m->body.size() == 1 && m->leading_comments.empty() && m->trailing_comments.empty() &&
         m->body[0]->kind == doc::StmtKind::kFunctionDef && m->body[0]->name == name &&
         m->body[0]->source == source->value;
}

}  // namespace

// ---------------------------------------------------------------- names and scopes

std::string Docsifier::UniqueName(const std::string& hint) {
  std::string base = Sanitize(hint);
  if (!used_names_.count(base) && !IsPythonKeyword(base)) {
    used_names_.insert(base);
    return base;
  }
  // Scan from the lowest suffix that may be free (kept per base, so that many clashing names do
  // not rescan from 1 each time).
  int& next = next_suffix_.emplace(base, 1).first->second;
  int k = next;
  std::string name = base + "_" + std::to_string(k);
  while (used_names_.count(name)) name = base + "_" + std::to_string(++k);
  next = k + 1;
  used_names_.insert(name);
  return name;
}

void Docsifier::ReleaseName(const std::string& name) {
  used_names_.erase(name);
  size_t us = name.rfind('_');
  if (us == std::string::npos || us + 1 >= name.size()) return;
  for (size_t i = us + 1; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return;
  }
  auto it = next_suffix_.find(name.substr(0, us));
  if (it == next_suffix_.end()) return;
  it->second = std::min(it->second, std::atoi(name.c_str() + us + 1));
}

ExprPtr Docsifier::DefineIn(size_t scope, const ir::Object* obj, const std::string& hint) {
  std::string name = UniqueName(hint);
  ExprPtr id = Id(name);
  docs_[obj] = id;
  scopes_[scope].objects.push_back(obj);
  scopes_[scope].names.push_back(std::move(name));
  return id;
}

void Docsifier::Alias(size_t scope, const ir::Object* obj, ExprPtr doc) {
  docs_[obj] = std::move(doc);
  scopes_[scope].objects.push_back(obj);
}

ExprPtr Docsifier::Lookup(const ir::Object* obj) const {
  auto it = docs_.find(obj);
  return it == docs_.end() ? nullptr : it->second;
}

void Docsifier::PushScope() { scopes_.emplace_back(); }

void Docsifier::PopScope() {
  Scope& s = scopes_.back();
  for (const ir::Object* obj : s.objects) docs_.erase(obj);
  for (const std::string& name : s.names) ReleaseName(name);
  scopes_.pop_back();
}

// ---------------------------------------------------------------- prefixes and header

ExprPtr Docsifier::T(const std::string& name) {
  used_t_ = true;
  return Attr(Id("T"), name);
}

ExprPtr Docsifier::R(const std::string& name) {
  used_r_ = true;
  return Attr(Id("R"), name);
}

ExprPtr Docsifier::I(const std::string& name) {
  used_i_ = true;
  return Attr(Id("I"), name);
}

void Docsifier::AddHeader(doc::Module* m, bool module_header) const {
  auto add = [m](const char* text) {
    doc::Comment c;
    c.text = text;
    m->leading_comments.push_back(std::move(c));
  };
  if (module_header || used_i_) add("from tvm.script import ir as I");
  if (used_t_) {
    add("from tvm.script import tirx as T");
    add("from tvm.tirx.layout import Axis");
  }
  if (used_r_) add("from tvm.script import relax as R");
}

// ---------------------------------------------------------------- attributes

ExprPtr Docsifier::PrintAttrMap(const ir::Map<ir::String, ir::ObjectRef>& attrs,
                                const std::vector<std::string>& skip, bool bare_numbers) {
  std::vector<ExprPtr> keys, values;
  for (size_t i = 0; i < attrs.size(); ++i) {
    const std::string& key = attrs.key_at(i).str();
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    keys.push_back(StrLit(key));
    // A target given as its string prints as TVMScript spells targets: T.target("cuda").
    const auto* target = attrs.value_at(i).as<ir::StringNode>();
    if (key == "target" && target) {
      values.push_back(CallE(T("target"), {StrLit(target->value)}));
      continue;
    }
    if (key == "target" && attrs.value_at(i).as<ir::MapNode>()) {  // T.target({"kind": ..., "host": ...})
      values.push_back(CallE(T("target"), {PrintAttrValue(attrs.value_at(i), bare_numbers)}));
      continue;
    }
    values.push_back(PrintAttrValue(attrs.value_at(i), bare_numbers));
  }
  return DictE(std::move(keys), std::move(values));
}

// T.comm_reducer(lambda x, y: x + y, [identity]): lhs then rhs are the lambda's parameters, named
// in a scope of their own.
ExprPtr Docsifier::PrintCommReducer(const ir::CommReducerNode* r) {
  PushScope();
  std::vector<std::string> args;
  for (const auto* vars : {&r->lhs, &r->rhs}) {
    for (const ir::Var& v : *vars) args.push_back(Define(v.get(), v->name)->name);
  }
  std::vector<ExprPtr> results, ids;
  for (const ir::PrimExpr& e : r->result) results.push_back(PrintExpr(e));
  for (const ir::PrimExpr& e : r->identity_element) ids.push_back(PrintExpr(e));
  PopScope();
  ExprPtr body = results.size() == 1 ? results[0] : TupleE(std::move(results));
  return CallE(T("comm_reducer"), {LambdaE(std::move(args), std::move(body)), ListE(std::move(ids))});
}

// T.index_map(lambda i, j: (j, i), index_dtype="int32"); int64 indices are the default.
ExprPtr Docsifier::PrintIndexMap(const ir::IndexMapNode* m) {
  PushScope();
  std::vector<std::string> args;
  for (const ir::Var& v : m->initial_indices) args.push_back(Define(v.get(), v->name)->name);
  std::vector<ExprPtr> results;
  for (const ir::PrimExpr& e : m->final_indices) results.push_back(PrintExpr(e));
  PopScope();
  Kwargs kw;
  if (!m->initial_indices.empty() && m->initial_indices[0]->dtype != ir::DataType::Int(64)) {
    kw.emplace_back("index_dtype", StrLit(m->initial_indices[0]->dtype.ToString()));
  }
  return CallE(T("index_map"), {LambdaE(std::move(args), TupleE(std::move(results)))}, std::move(kw));
}

ExprPtr Docsifier::PrintAttrValue(const ir::ObjectRef& value, bool bare_numbers) {
  using namespace ir;  // NOLINT: node types only
  if (!value.defined()) return NoneLit();
  if (const auto* s = value.as<StringNode>()) return StrLit(s->value);
  if (const auto* imm = value.as<IntImmNode>()) {
    if (imm->dtype.is_bool()) return BoolLit(imm->value != 0);
    // A bare number reads back as int32, or int64 when it does not fit: other dtypes are spelled.
    bool fits32 = imm->value == static_cast<int32_t>(imm->value);
    if (imm->dtype == DataType::Int(32) || (bare_numbers && imm->dtype == DataType::Int(64) && !fits32)) {
      return IntLit(imm->value);
    }
    return PrintIntImm(imm);
  }
  if (const auto* f = value.as<FloatImmNode>()) {
    if (bare_numbers && f->dtype == DataType::Float(32)) return FloatLit(f->value);
    return PrintExpr(GetRef<FloatImm>(f));
  }
  if (const auto* arr = value.as<ArrayNode>()) {
    std::vector<ExprPtr> elts;
    for (const ObjectRef& x : arr->data) elts.push_back(PrintAttrValue(x, bare_numbers));
    return ListE(std::move(elts));
  }
  if (const auto* map = value.as<MapNode>()) {
    std::vector<ExprPtr> keys, values;
    for (const auto& kv : map->data) {
      keys.push_back(PrintAttrValue(kv.first, bare_numbers));
      values.push_back(PrintAttrValue(kv.second, bare_numbers));
    }
    return DictE(std::move(keys), std::move(values));
  }
  if (const auto* dt = value.as<relax::DataTypeImmNode>()) return StrLit(dt->value.ToString());
  if (const auto* rs = value.as<relax::StringImmNode>()) return StrLit(rs->value);
  if (const auto* b = value.as<BufferNode>()) return BufferRef(GetRef<Buffer>(b));
  if (const auto* iv = value.as<IterVarNode>()) {
    // T.iter_var(var, [begin, end] | None, "Kind", "tag"), read back as the same IterVar node.
    static constexpr const char* kKinds[] = {"DataPar",  "ThreadIndex", "CommReduce",   "Ordered",   "Opaque",
                                             "Unrolled", "Vectorized",  "Parallelized", "Tensorized"};
    ExprPtr dom = NoneLit();
    if (iv->dom.defined()) {
      const auto* lo = iv->dom->min.as<IntImmNode>();
      const auto* ext = iv->dom->extent.as<IntImmNode>();
      PrimExpr end = lo && ext ? PrimExpr(IntImm(iv->dom->min.dtype(), lo->value + ext->value))
                   : lo && lo->value == 0 ? iv->dom->extent
                                          : PrimExpr(Add(iv->dom->min, iv->dom->extent));
      dom = ListE({PrintExpr(iv->dom->min), PrintExpr(end)});
    }
    return CallE(T("iter_var"), {PrintExpr(iv->var), dom, StrLit(kKinds[static_cast<int>(iv->iter_type)]),
                                 StrLit(iv->thread_tag)});
  }
  if (const auto* r = value.as<CommReducerNode>()) return PrintCommReducer(r);
  if (value.as<TileLayoutNode>() || value.as<ComposeLayoutNode>()) return PrintLayout(value);
  if (const auto* m = value.as<IndexMapNode>()) return PrintIndexMap(m);
  if (const auto* gi = value.as<GlobalInfoNode>(); gi && gi->kind == "device_mesh") return PrintDeviceMesh(gi);
  if (const auto* gi = value.as<GlobalInfoNode>()) {
    Kwargs kwargs;
    for (size_t i = 0; i < gi->attrs.size(); ++i) {
      kwargs.emplace_back(gi->attrs.key_at(i).str(), PrintAttrValue(gi->attrs.value_at(i), true));
    }
    std::string fn = gi->kind == "dummy" ? "dummy_global_info" : gi->kind;
    return CallE(I(fn), {}, std::move(kwargs));
  }
  if (const auto* r = value.as<RangeNode>()) {
    return CallE(I("Range"), {PrintExpr(r->min), RangeEnd(r->min, r->extent)});
  }
  if (value.as<TypeNode>()) return PrintType(Downcast<Type>(value));
  if (const auto* v = value.as<VarNode>()) {
    if (ExprPtr d = Lookup(v)) return d;
  }
  if (value.as<PrimExprNode>() && !value.as<VarNode>()) return PrintExpr(Downcast<PrimExpr>(value));
  if (value.as<ExprNode>()) return PrintRelaxExpr(Downcast<Expr>(value));
  return StrLit(value->type_key());
}

ExprPtr Docsifier::PrintDeviceMesh(const ir::GlobalInfoNode* mesh) {
  using namespace ir;  // NOLINT
  for (size_t i = 0; i < global_infos_.size(); ++i) {
    const Array<GlobalInfo>& infos = global_infos_.value_at(i);
    for (size_t j = 0; j < infos.size(); ++j) {
      if (infos[j].get() == mesh || StructuralEqual(infos[j], GetRef<GlobalInfo>(mesh))) {
        return StrLit(absl::StrCat(global_infos_.key_at(i).str(), "[", j, "]"));
      }
    }
  }
  std::vector<ExprPtr> dims;
  for (int64_t d : DeviceMeshShape(GetRef<GlobalInfo>(mesh))) dims.push_back(IntLit(d));
  ExprPtr devices;
  if (const auto* r = mesh->attrs.Get(String("device_range")).as<RangeNode>()) {
    // TVM spells the range I.Range in the module's global infos and R.Range elsewhere; its bounds
    // are Python ints either way (TVM's Relax printer writes every integer bare).
    const auto* lo = r->min.as<IntImmNode>();
    const auto* ext = r->extent.as<IntImmNode>();
    std::vector<ExprPtr> bounds = lo && ext ? std::vector<ExprPtr>{IntLit(lo->value), IntLit(lo->value + ext->value)}
                                            : std::vector<ExprPtr>{PrintExpr(r->min), RangeEnd(r->min, r->extent)};
    devices = CallE(in_module_ ? I("Range") : R("Range"), std::move(bounds));
  } else {
    std::vector<ExprPtr> ids;
    if (const auto* a = mesh->attrs.Get(String("device_ids")).as<ArrayNode>()) {
      for (const ObjectRef& x : a->data) ids.push_back(PrintAttrValue(x, true));
    }
    devices = ListE(std::move(ids));
  }
  return CallE(R("device_mesh"), {TupleE(std::move(dims)), devices});
}

// ---------------------------------------------------------------- module and dispatch

std::string Docsifier::FuncName(const ir::BaseFuncNode* f) const {
  if (!options_.func_name.empty()) return options_.func_name;
  std::string sym = f->GetGlobalSymbol();
  return sym.empty() ? "main" : sym;
}

doc::Module Docsifier::PrintModule(const ir::IRModule& mod) {
  in_module_ = true;
  std::vector<StmtPtr> body;
  // A module of TVM's BasePyModule (Python methods) is written as a class deriving from it, as in
  // its source, rather than with the attribute the base sets.
  ir::Map<ir::String, ir::ObjectRef> attrs = mod->attrs;
  const auto* py = attrs.Get(ir::String("base_py_module")).as<ir::IntImmNode>();
  const bool base_py_module = py != nullptr && py->dtype.is_bool() && py->value != 0;
  if (base_py_module) attrs.erase(ir::String("base_py_module"));
  if (!attrs.empty()) body.push_back(ExprStmt(CallE(I("module_attrs"), {PrintAttrMap(attrs)})));
  if (!mod->global_infos.empty()) {
    std::vector<ExprPtr> keys, values;
    for (size_t i = 0; i < mod->global_infos.size(); ++i) {
      keys.push_back(StrLit(mod->global_infos.key_at(i).str()));
      values.push_back(PrintAttrValue(mod->global_infos.value_at(i), true));
    }
    body.push_back(ExprStmt(CallE(I("module_global_infos"), {DictE(std::move(keys), std::move(values))})));
    global_infos_ = mod->global_infos;
  }
  for (const auto& [gv, func] : mod.Functions()) {
    if (const auto* pf = func.as<ir::PrimFuncNode>()) {
      body.push_back(PrintPrimFunc(ir::GetRef<ir::PrimFunc>(pf), gv->name));
    } else if (const auto* rf = func.as<ir::relax::FunctionNode>()) {
      body.push_back(PrintRelaxFunc(ir::GetRef<ir::relax::Function>(rf), gv->name));
    }
    if (const auto* ef = func.as<ir::relax::ExternFuncNode>()) {
      const auto* source = ef->attrs.Get(ir::String("python_source")).as<ir::StringNode>();
      if (base_py_module && source != nullptr && IsPyFunc(ef, gv->name)) {
        // An @I.pyfunc method: its Python source as written (BasePyModule.script() in TVM).
        StmtPtr def = FunctionDefS(gv->name, {}, {}, nullptr, {});
        def->source = source->value;
        body.push_back(def);
        continue;
      }
      // TVM's form: `name = R.ExternFunc("symbol")` in the class body.
      body.push_back(Assign(Id(gv->name), PrintExternFunc(ef)));
    }
  }
  doc::Module m;
  m.body.push_back(ClassDefS("Module", {I("ir_module")}, std::move(body)));
  if (base_py_module) m.body.back()->bases.push_back(Id("BasePyModule"));
  AddHeader(&m, /*module_header=*/true);
  return m;
}

doc::Module Docsifier::PrintTop(const ir::ObjectRef& node) {
  using namespace ir;  // NOLINT: node types only
  PushScope();
  doc::Module m;
  if (const auto* mod = node.as<IRModuleNode>()) {
    for (const char* reserved : {"I", "T", "R", "Module", "cls", "range"}) used_names_.insert(reserved);
    m = PrintModule(GetRef<IRModule>(mod));
  } else if (const auto* pf = node.as<PrimFuncNode>()) {
    for (const char* reserved : {"T", "range"}) used_names_.insert(reserved);
    m.body.push_back(PrintPrimFunc(GetRef<PrimFunc>(pf), FuncName(pf)));
    AddHeader(&m, false);
  } else if (const auto* rf = node.as<relax::FunctionNode>()) {
    for (const char* reserved : {"T", "R"}) used_names_.insert(reserved);
    m.body.push_back(PrintRelaxFunc(GetRef<relax::Function>(rf), FuncName(rf)));
    AddHeader(&m, false);
  } else if (node.as<StmtNode>()) {
    std::vector<StmtPtr> stmts;
    PrintStmt(Downcast<Stmt>(node), &stmts);
    m.body = std::move(stmts);
  } else if (node.as<TypeNode>()) {
    m.body.push_back(ExprStmt(PrintType(Downcast<Type>(node))));
  } else if (const auto* b = node.as<BufferNode>()) {
    m.body.push_back(ExprStmt(BufferCall(T("Buffer"), {}, GetRef<Buffer>(b), true, false, "")));
  } else if (node.as<PrimExprNode>() && !(node.as<VarNode>() && node.as<VarNode>()->dtype.is_void())) {
    m.body.push_back(ExprStmt(PrintExpr(Downcast<PrimExpr>(node))));
  } else if (node.as<ExprNode>()) {
    relax_ctx_ = true;
    m.body.push_back(ExprStmt(PrintRelaxExpr(Downcast<Expr>(node))));
  } else if (node.defined()) {
    m.body.push_back(ExprStmt(PrintAttrValue(node, false)));
  } else {
    m.body.push_back(ExprStmt(NoneLit()));
  }
  PopScope();
  return m;
}

}  // namespace kiln::script::printer
