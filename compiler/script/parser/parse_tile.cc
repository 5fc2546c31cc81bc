// TVMScript parser, TVM v0.26's TIRx tile/device DSL inside `@T.prim_func`:
//  * `T.device_entry()`: everything after it is device code; TVM wraps the rest of the function in
//    AttrStmt("tirx.device_entry", True), which prints as `T.attr({"tirx.device_entry": ...})`,
//    so the flat one-dict form of T.attr is read here too (one AttrStmt per key, the first
//    outermost, each over the rest of the block);
//  * T.local_scalar / T.shared_scalar / T.alloc_scalar: a scalar buffer, as `x: T.int32`;
//  * scope ids, `bx, by = T.cta_id([4, 2])`, `tx = T.thread_id([128])`, `T.lane_id()`: one
//    ScopeIdDefStmt declaring a var per axis for the rest of the block.
// Kept apart from parse_tir.cc because the family is self-contained and TVM keeps it in its own
// builder layer (tirx/script/builder).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/script/parser/parser_impl.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
using K = Value::Kind;

namespace {

struct ScopeIdFunction {
  const char* name;
  ScopeBinding binding;
  bool takes_preferred;  // T.cta_id / T.cta_id_in_cluster(extents, preferred, dtype)
};
constexpr ScopeIdFunction kScopeIdFunctions[] = {
    {"cluster_id", ScopeBinding::kKernelCluster, false},
    {"cta_id", ScopeBinding::kKernelCta, true},
    {"cta_id_in_cluster", ScopeBinding::kClusterCta, true},
    {"cta_id_in_pair", ScopeBinding::kClusterCtaPair, false},
    {"warpgroup_id", ScopeBinding::kCtaWarpgroup, false},
    {"warp_id", ScopeBinding::kCtaWarp, false},
    {"warp_id_in_wg", ScopeBinding::kWarpgroupWarp, false},
    {"lane_id", ScopeBinding::kWarpThread, false},
    {"thread_id", ScopeBinding::kCtaThread, false},
    {"thread_id_in_wg", ScopeBinding::kWarpgroupThread, false},
};

}  // namespace

bool Parser::CallTileDSL(const std::string& name, CallArgs& a, Value* out) {
  const Span& span = a.span;
  auto need_body = [&]() {
    if (!tir_.func()) Fail(span, absl::StrCat("T.", name, " is a statement: it can only be used in a T.prim_func"));
  };
  if (name == "device_entry") {
    if (!a.args.empty() || !a.kwargs.empty()) Fail(span, "T.device_entry() takes no arguments");
    need_body();
    tir_.BeginImplicit([span](Stmt body) {
      return AttrStmt(ObjectRef(), "tirx.device_entry", IntImm(DataType::Bool(), 1), body, span);
    });
    *out = Value::None();
    return true;
  }
  if (name == "attr" && a.args.size() == 1 && a.kwargs.empty()) {
    const Value& d = a.args[0];
    if (d.kind != K::kDict || d.keys.empty()) Fail(span, "T.attr({key: value, ...}) takes a dict of annotations");
    need_body();
    for (size_t i = 0; i < d.keys.size(); ++i) {
      std::string key = ToStr(d.keys[i], span);
      PrimExpr value = ToPrim(d.items[i], d.items[i].span.defined() ? d.items[i].span : span);
      tir_.BeginImplicit([key, value, span](Stmt body) { return AttrStmt(ObjectRef(), key, value, body, span); });
    }
    *out = Value::None();
    return true;
  }

  if (name == "local_scalar" || name == "shared_scalar" || name == "alloc_scalar") {
    // A one-element buffer that reads and writes without indices, like `x: T.int32`.
    std::vector<std::string> params = {"dtype"};
    if (name == "alloc_scalar") params.push_back("scope");
    if (a.args.size() > params.size()) {
      Fail(span, absl::StrCat("T.", name, " takes at most ", params.size(), " positional arguments"));
    }
    DataType dtype = DataType::Float(32);
    std::string scope = name == "local_scalar" ? "local" : name == "shared_scalar" ? "shared" : "global";
    for (size_t i = 0; i < params.size(); ++i) {
      const Value* v = i < a.args.size() ? &a.args[i] : nullptr;
      for (const auto& [k, kv] : a.kwargs) {
        if (k == params[i]) v = &kv;
      }
      if (!v) continue;
      if (i == 0) dtype = ToDType(*v, v->span.defined() ? v->span : span);
      else scope = ToStr(*v, span);
    }
    for (const auto& [k, kv] : a.kwargs) {
      if (k != "dtype" && (k != "scope" || name != "alloc_scalar")) {
        Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
      }
    }
    need_body();
    Buffer buf = Buffer::Make(name_hint_.empty() ? "v" : name_hint_, {}, dtype, scope, span);
    Map<String, ObjectRef> annotations;
    annotations.Set(String("tirx.local_scalar"), IntImm(DataType::Bool(), 1));
    tir_.BeginImplicit([buf, annotations, span](Stmt body) { return AllocBuffer(buf, body, annotations, span); });
    *out = Value::Obj(K::kBuffer, buf);
    out->b = true;  // a scalar: `x` reads it, `x = v` writes it
    return true;
  }

  const ScopeIdFunction* fn = nullptr;
  for (const ScopeIdFunction& f : kScopeIdFunctions) {
    if (name == f.name) fn = &f;
  }
  if (!fn) return false;
  need_body();
  bool pair = fn->binding == ScopeBinding::kClusterCtaPair;
  // Positional order as TVM's functions: (extents, [preferred,] dtype); cta_id_in_pair(dtype).
  std::vector<std::string> params = pair ? std::vector<std::string>{"dtype"}
                                    : fn->takes_preferred ? std::vector<std::string>{"extents", "preferred", "dtype"}
                                                          : std::vector<std::string>{"extents", "dtype"};
  if (a.args.size() > params.size()) {
    Fail(span, absl::StrCat("T.", name, " takes at most ", params.size(), " positional arguments"));
  }
  std::vector<const Value*> given(params.size(), nullptr);
  for (size_t i = 0; i < a.args.size(); ++i) given[i] = &a.args[i];
  for (const auto& [k, v] : a.kwargs) {
    size_t i = 0;
    while (i < params.size() && params[i] != k) ++i;
    if (i == params.size()) Fail(span, absl::StrCat("unexpected keyword argument '", k, "' for T.", name));
    if (given[i]) Fail(span, absl::StrCat("T.", name, " got argument '", k, "' twice"));
    given[i] = &v;
  }
  auto param = [&](const char* p) -> const Value* {
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i] == p && given[i] && given[i]->kind != K::kNone) return given[i];
    }
    return nullptr;
  };
  DataType dtype = DataType::Int(32);
  if (const Value* d = param("dtype")) dtype = ToDType(*d, d->span.defined() ? d->span : span);
  if (!dtype.is_scalar() || dtype.bits() != 32 || !(dtype.is_int() || dtype.is_uint())) {
    Fail(span, absl::StrCat("the dtype of a scope id must be \"int32\" or \"uint32\", got ", dtype.ToString()));
  }
  Array<PrimExpr> extents, preferred;
  if (pair) {
    extents.push_back(IntImm(DataType::Int(32), 2));  // a CTA pair has two members
  } else if (const Value* e = param("extents")) {
    if (!e->is_seq()) Fail(e->span.defined() ? e->span : span, absl::StrCat("T.", name, " takes a list of extents"));
    extents = ToPrimArray(*e, span);
    if (extents.empty()) Fail(span, absl::StrCat("T.", name, " needs at least one extent (or none to defer it)"));
  }
  if (const Value* p = param("preferred")) {
    if (fn->binding != ScopeBinding::kClusterCta) {
      Fail(span, "preferred= is only valid for T.cta_id_in_cluster (a cluster->cta scope id)");
    }
    if (extents.empty()) Fail(span, "preferred= requires explicit extents");
    preferred = ToPrimArray(*p, span);
  }
  size_t n = pair || extents.empty() ? 1 : extents.size();
  bool one_axis = fn->binding == ScopeBinding::kCtaWarp || fn->binding == ScopeBinding::kWarpgroupWarp ||
                  fn->binding == ScopeBinding::kCtaWarpgroup;
  if (one_axis && n != 1) Fail(span, absl::StrCat("T.", name, " only supports 1D extents, got ", n, "D"));

  // The vars take the assignment's names: `bx, by = T.cta_id([4, 2])`.
  Array<Var> vars;
  std::vector<Value> items;
  for (size_t i = 0; i < n; ++i) {
    std::string var_name = n == 1 && !name_hint_.empty() ? name_hint_
                           : i < name_hints_.size() && name_hints_.size() == n ? name_hints_[i]
                                                                              : std::string("v");
    Var v(var_name, dtype, span);
    vars.push_back(v);
    Value item = Value::Obj(K::kPrim, v);
    item.fresh_var = true;  // bound by name, not by a LetStmt; discarded when unassigned
    items.push_back(item);
  }
  ScopeBinding binding = fn->binding;
  tir_.BeginImplicit([vars, extents, binding, preferred, span](Stmt body) {
    return ScopeIdDefStmt(vars, extents, binding, body, preferred, span);
  });
  *out = n == 1 ? items[0] : Value::Seq(K::kTuple, std::move(items));
  return true;
}

}  // namespace kiln::script::parser
