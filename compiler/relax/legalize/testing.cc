#include "compiler/relax/legalize/testing.h"

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/script.h"
#include "compiler/tir/functor.h"
#include "runtime/npy.h"

namespace kiln::relax::legalize::testing {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

absl::StatusOr<DLDataType> ToDL(DataType t) {
  if (t.is_bool()) return DLDataType{runtime::kDLBoolCode, 8, 1};
  return runtime::ParseDType(t.ToString());
}

// Integer value of a shape expression under the bindings.
absl::StatusOr<int64_t> EvalDim(const PrimExpr& e, const std::unordered_map<const VarNode*, int64_t>& env) {
  if (const auto* i = e.as<IntImmNode>()) return i->value;
  if (const auto* v = e.as<VarNode>()) {
    auto it = env.find(v);
    if (it == env.end()) return absl::InvalidArgumentError("unbound symbolic dim " + v->name);
    return it->second;
  }
  if (const auto* b = dynamic_cast<const BinaryNode*>(e.get())) {
    absl::StatusOr<int64_t> x = EvalDim(b->a, env);
    if (!x.ok()) return x.status();
    absl::StatusOr<int64_t> y = EvalDim(b->b, env);
    if (!y.ok()) return y.status();
    switch (e->kind()) {
      case NodeKind::kAdd: return *x + *y;
      case NodeKind::kSub: return *x - *y;
      case NodeKind::kMul: return *x * *y;
      case NodeKind::kFloorDiv: return *y == 0 ? 0 : (*x - ((*x % *y) + *y) % *y) / *y;
      case NodeKind::kFloorMod: return *y == 0 ? 0 : ((*x % *y) + *y) % *y;
      case NodeKind::kMin: return std::min(*x, *y);
      case NodeKind::kMax: return std::max(*x, *y);
      default: break;
    }
  }
  return absl::InvalidArgumentError("cannot evaluate dim of kind " + std::string(e->type_key()));
}

class Evaluator {
 public:
  Evaluator(const IRModule& module, driver::RunTarget target) : module_(module), target_(target) {}

  absl::Status Init() {
    IRModule kernels = IRModule::Make();
    for (const auto& [gv, f] : module_.Functions()) {
      if (!f.as<PrimFuncNode>()) continue;
      // Private PrimFuncs (the corpus' hand-written kernels) are called by their module name.
      PrimFunc pf = Downcast<PrimFunc>(f);
      if (pf->GetGlobalSymbol().empty()) {
        Map<String, ObjectRef> attrs = pf->attrs;
        attrs.Set(String("global_symbol"), String(gv->name));
        pf.CopyOnWrite()->attrs = attrs;
      }
      kernels.Add(gv, pf);
    }
    driver::RunOptions options;
    options.target = target_;
    absl::StatusOr<std::unique_ptr<driver::Runner>> r = driver::Runner::Create(kernels, options);
    if (!r.ok()) return r.status();
    runner_ = std::move(*r);
    return absl::OkStatus();
  }

  // A value is a list of tensors: one for a tensor, the fields for a tuple.
  using Value = std::vector<runtime::Tensor>;

  absl::StatusOr<Value> Run(const rx::Function& f, const std::vector<Value>& inputs) {
    if (inputs.size() != f->params.size()) return absl::InvalidArgumentError("wrong number of inputs");
    for (size_t i = 0; i < inputs.size(); ++i) {
      env_[f->params[i].get()] = inputs[i];
      BindDims(f->params[i]->ty, inputs[i]);
    }
    return Eval(f->body);
  }

 private:
  // Binds the symbolic dims written as bare vars in a tensor type to the value's shape.
  void BindDims(const Type& t, const Value& v) {
    const auto* tt = t.as<TensorTypeNode>();
    const auto* shape = tt ? tt->shape.as<rx::ShapeExprNode>() : nullptr;
    if (shape == nullptr || v.size() != 1 || v[0].shape().size() != shape->values.size()) return;
    for (size_t d = 0; d < shape->values.size(); ++d) {
      if (const auto* var = shape->values[d].as<VarNode>()) dims_[var] = v[0].shape()[d];
    }
  }

  absl::StatusOr<runtime::Tensor> Alloc(const Type& t) {
    const auto* tt = t.as<TensorTypeNode>();
    const auto* shape = tt ? tt->shape.as<rx::ShapeExprNode>() : nullptr;
    if (shape == nullptr) return absl::InvalidArgumentError("call_tir output without a shape");
    std::vector<int64_t> dims;
    for (const PrimExpr& e : shape->values) {
      absl::StatusOr<int64_t> d = EvalDim(e, dims_);
      if (!d.ok()) return d.status();
      dims.push_back(*d);
    }
    absl::StatusOr<DLDataType> dt = ToDL(tt->dtype);
    if (!dt.ok()) return dt.status();
    return runtime::Tensor::Empty(dims, *dt);
  }

  absl::StatusOr<Value> Eval(const Expr& e) {
    if (const auto* seq = e.as<rx::SeqExprNode>()) {
      for (const rx::BindingBlock& block : seq->blocks) {
        for (const rx::Binding& b : block->bindings) {
          if (const auto* mc = b.as<rx::MatchCastNode>()) {
            absl::StatusOr<Value> v = Eval(mc->value);
            if (!v.ok()) return v.status();
            env_[mc->var.get()] = *v;
            BindDims(mc->cast_ty, *v);
            continue;
          }
          const auto* vb = b.as<rx::VarBindingNode>();
          if (vb == nullptr) return absl::InvalidArgumentError("unsupported binding");
          absl::StatusOr<Value> v = Eval(vb->value);
          if (!v.ok()) return v.status();
          env_[vb->var.get()] = *v;
        }
      }
      return Eval(seq->body);
    }
    if (const auto* branch = e.as<rx::IfNode>()) {
      absl::StatusOr<Value> c = Eval(branch->cond);
      if (!c.ok()) return c.status();
      if (c->size() != 1 || (*c)[0].numel() != 1) return absl::InvalidArgumentError("condition is not a scalar");
      bool taken = *static_cast<const uint8_t*>((*c)[0].data()) != 0;
      return Eval(taken ? branch->true_branch : branch->false_branch);
    }
    if (const auto* v = e.as<VarNode>()) {
      auto it = env_.find(v);
      if (it == env_.end()) return absl::InvalidArgumentError("unbound variable " + v->name);
      return it->second;
    }
    if (const auto* c = e.as<rx::ConstantNode>()) {
      std::vector<int64_t> dims;
      for (const IntImm& d : c->shape) dims.push_back(d->value);
      absl::StatusOr<DLDataType> dt = ToDL(c->dtype);
      if (!dt.ok()) return dt.status();
      absl::StatusOr<runtime::Tensor> t = runtime::Tensor::Empty(dims, *dt);
      if (!t.ok()) return t.status();
      if (static_cast<int64_t>(c->data.size()) != t->nbytes()) return absl::InvalidArgumentError("constant size");
      std::memcpy(t->data(), c->data.data(), c->data.size());
      return Value{*t};
    }
    if (const auto* t = e.as<rx::TupleNode>()) {
      Value out;
      for (const Expr& f : t->fields) {
        absl::StatusOr<Value> v = Eval(f);
        if (!v.ok()) return v.status();
        if (v->size() != 1) return absl::InvalidArgumentError("nested tuples are not supported");
        out.push_back((*v)[0]);
      }
      return out;
    }
    if (const auto* g = e.as<rx::TupleGetItemNode>()) {
      absl::StatusOr<Value> v = Eval(g->tuple);
      if (!v.ok()) return v.status();
      if (g->index < 0 || static_cast<size_t>(g->index) >= v->size()) return absl::InvalidArgumentError("bad index");
      return Value{(*v)[g->index]};
    }
    if (const auto* call = e.as<rx::CallNode>()) {
      const auto* op = call->op.as<OpNode>();
      if (op != nullptr && op->name == "relax.shape_of") {
        absl::StatusOr<Value> v = Eval(call->args[0]);
        if (!v.ok()) return v.status();
        const std::vector<int64_t>& dims = (*v)[0].shape();
        runtime::Tensor s = *runtime::Tensor::Empty({static_cast<int64_t>(dims.size())}, DLDataType{kDLInt, 64, 1});
        if (!dims.empty()) std::memcpy(s.data(), dims.data(), 8 * dims.size());
        return Value{s};
      }
      if (const auto* gv = call->op.as<GlobalVarNode>()) {
        // A call of another Relax function: its own scope of variables and symbolic dims.
        const auto* callee = module_.Lookup(gv->name).as<rx::FunctionNode>();
        if (callee == nullptr) return absl::InvalidArgumentError("call of unknown function " + gv->name);
        std::vector<Value> args;
        for (const Expr& a : call->args) {
          absl::StatusOr<Value> v = Eval(a);
          if (!v.ok()) return v.status();
          args.push_back(*v);
        }
        auto saved_env = std::move(env_);
        auto saved_dims = std::move(dims_);
        env_.clear();
        dims_.clear();
        absl::StatusOr<Value> r = Run(GetRef<rx::Function>(callee), args);
        env_ = std::move(saved_env);
        dims_ = std::move(saved_dims);
        return r;
      }
      bool inplace = op != nullptr && op->name == "relax.call_tir_inplace";
      if (op == nullptr || (op->name != "relax.call_tir" && !inplace)) {
        return absl::InvalidArgumentError("unsupported call in a legalized function");
      }
      const auto* gv = call->args[0].as<GlobalVarNode>();
      const auto* args = call->args[1].as<rx::TupleNode>();
      if (gv == nullptr || args == nullptr) return absl::InvalidArgumentError("malformed call_tir");
      std::vector<runtime::Tensor> tensors, prims;
      for (const Expr& a : args->fields) {
        if (const auto* pv = a.as<rx::PrimValueNode>()) {
          absl::StatusOr<int64_t> d = EvalDim(pv->value, dims_);
          if (!d.ok()) return d.status();
          runtime::Tensor s = *runtime::Tensor::Empty({}, DLDataType{kDLInt, 64, 1});
          std::memcpy(s.data(), &*d, 8);
          prims.push_back(s);
          continue;
        }
        absl::StatusOr<Value> v = Eval(a);
        if (!v.ok()) return v.status();
        // A prim-typed value (a R.Prim parameter) is a trailing scalar argument.
        (ExprType(a).as<PrimTypeNode>() ? prims : tensors).push_back((*v)[0]);
      }
      Value outs;
      std::vector<Type> out_types = call->ty_args.ToVector();
      if (out_types.size() == 1 && out_types[0].as<TupleTypeNode>()) {
        out_types = out_types[0].as<TupleTypeNode>()->fields.ToVector();
      }
      // call_tir_inplace: output j is input inplace_indices[j] itself (written in place) unless -1.
      std::vector<int64_t> inplace_idx =
          inplace ? IntArrayAttr(GetRef<rx::Call>(call), "inplace_indices").value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
      std::vector<runtime::Tensor> fresh;
      for (size_t j = 0; j < out_types.size(); ++j) {
        if (j < inplace_idx.size() && inplace_idx[j] >= 0) {
          outs.push_back(tensors[inplace_idx[j]]);
          continue;
        }
        absl::StatusOr<runtime::Tensor> o = Alloc(out_types[j]);
        if (!o.ok()) return o.status();
        outs.push_back(*o);
        fresh.push_back(*o);
      }
      std::vector<runtime::Tensor> all = tensors;
      all.insert(all.end(), fresh.begin(), fresh.end());
      all.insert(all.end(), prims.begin(), prims.end());
      absl::StatusOr<KilnAny> r = runner_->Call(gv->name, all);
      if (!r.ok()) return r.status();
      return outs;
    }
    return absl::InvalidArgumentError(std::string("unsupported expression ") + e->type_key());
  }

  IRModule module_;
  driver::RunTarget target_;
  std::unique_ptr<driver::Runner> runner_;
  std::unordered_map<const VarNode*, Value> env_;
  std::unordered_map<const VarNode*, int64_t> dims_;
};

std::string TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = absl::StrCat(base ? base : "/tmp", "/legalize_XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  return mkdtemp(buf.data()) ? std::string(buf.data()) : std::string();
}

double Get(const runtime::Tensor& t, int64_t i) {
  DLDataType dt = t.dtype();
  const char* p = static_cast<const char*>(t.data());
  switch (dt.code) {
    case kDLFloat:
      if (dt.bits == 32) return reinterpret_cast<const float*>(p)[i];
      if (dt.bits == 64) return reinterpret_cast<const double*>(p)[i];
      break;
    case kDLInt:
      if (dt.bits == 8) return reinterpret_cast<const int8_t*>(p)[i];
      if (dt.bits == 16) return reinterpret_cast<const int16_t*>(p)[i];
      if (dt.bits == 32) return reinterpret_cast<const int32_t*>(p)[i];
      if (dt.bits == 64) return static_cast<double>(reinterpret_cast<const int64_t*>(p)[i]);
      break;
    case kDLUInt:
      if (dt.bits == 8) return reinterpret_cast<const uint8_t*>(p)[i];
      if (dt.bits == 32) return reinterpret_cast<const uint32_t*>(p)[i];
      break;
    case runtime::kDLBoolCode: return reinterpret_cast<const uint8_t*>(p)[i] != 0;
    default: break;
  }
  return std::nan("");
}

}  // namespace

absl::StatusOr<std::vector<runtime::Tensor>> RunRelax(const IRModule& module, const std::string& entry,
                                                      const std::vector<runtime::Tensor>& inputs,
                                                      driver::RunTarget target) {
  std::vector<std::vector<runtime::Tensor>> values;
  for (const runtime::Tensor& t : inputs) values.push_back({t});
  return RunRelax(module, entry, values, target);
}

absl::StatusOr<std::vector<runtime::Tensor>> RunRelax(const IRModule& module, const std::string& entry,
                                                      const std::vector<std::vector<runtime::Tensor>>& inputs,
                                                      driver::RunTarget target) {
  const auto* f = module.Lookup(entry).as<rx::FunctionNode>();
  if (f == nullptr) return absl::NotFoundError("no Relax function " + entry);
  Evaluator ev(module, target);
  absl::Status st = ev.Init();
  if (!st.ok()) return st;
  return ev.Run(GetRef<rx::Function>(f), inputs);
}

absl::StatusOr<std::vector<runtime::Tensor>> Numpy(const std::string& code, const std::vector<std::string>& names,
                                                   const std::vector<runtime::Tensor>& inputs) {
  std::string dir = TempDir();
  if (dir.empty()) return absl::InternalError("mkdtemp failed");
  std::string script = "import sys\nimport numpy as np\n_dir = sys.argv[1]\n";
  for (size_t i = 0; i < names.size(); ++i) {
    std::string path = absl::StrCat(dir, "/in", i, ".npy");
    absl::Status st = runtime::WriteNpy(path, inputs[i]);
    if (!st.ok()) return st;
    absl::StrAppend(&script, names[i], " = np.load(_dir + '/in", i, ".npy')\n");
  }
  absl::StrAppend(&script, code, "\n",
                  "outs = out if isinstance(out, tuple) else (out,)\n"
                  "for i, o in enumerate(outs):\n"
                  "    np.save(_dir + '/out%d.npy' % i, np.array(o, order='C'))\n"
                  "open(_dir + '/count', 'w').write(str(len(outs)))\n");
  {
    std::ofstream f(dir + "/oracle.py");
    f << script;
  }
  std::string cmd = absl::StrCat("/usr/bin/python3 ", dir, "/oracle.py ", dir, " 2>&1");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return absl::InternalError("cannot run python3");
  std::string output;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) output.append(buf, n);
  if (pclose(p) != 0) return absl::InternalError("numpy oracle failed: " + output);
  std::ifstream cf(dir + "/count");
  int count = 0;
  cf >> count;
  std::vector<runtime::Tensor> outs;
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<runtime::Tensor> t = runtime::ReadNpy(absl::StrCat(dir, "/out", i, ".npy"));
    if (!t.ok()) return t.status();
    outs.push_back(*t);
  }
  return outs;
}

runtime::Tensor Random(const std::vector<int64_t>& shape, const std::string& dtype, uint32_t seed) {
  DLDataType dt = dtype == "bool" ? DLDataType{runtime::kDLBoolCode, 8, 1} : *runtime::ParseDType(dtype);
  runtime::Tensor t = *runtime::Tensor::Empty(shape, dt);
  std::mt19937 rng(seed);
  char* p = static_cast<char*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) {
    double u = std::uniform_real_distribution<double>(-2.0, 2.0)(rng);
    int64_t k = std::uniform_int_distribution<int64_t>(-5, 4)(rng);
    if (dt.code == kDLFloat && dt.bits == 32) reinterpret_cast<float*>(p)[i] = static_cast<float>(u);
    if (dt.code == kDLFloat && dt.bits == 64) reinterpret_cast<double*>(p)[i] = u;
    if (dt.code == kDLInt && dt.bits == 32) reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(k);
    if (dt.code == kDLInt && dt.bits == 64) reinterpret_cast<int64_t*>(p)[i] = k;
    if (dt.code == kDLInt && dt.bits == 8) reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(k);
    if (dt.code == kDLUInt && dt.bits == 8) reinterpret_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(k + 5);
    if (dt.code == runtime::kDLBoolCode) reinterpret_cast<uint8_t*>(p)[i] = k >= 0;
  }
  return t;
}

std::string Compare(const runtime::Tensor& actual, const runtime::Tensor& expected, double rtol, double atol) {
  if (actual.shape() != expected.shape()) {
    return absl::StrCat("shape [", absl::StrJoin(actual.shape(), ","), "] vs expected [",
                        absl::StrJoin(expected.shape(), ","), "]");
  }
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = Get(actual, i), e = Get(expected, i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (a == e) continue;
    if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e))) {
      return absl::StrCat("element ", i, ": ", a, " vs expected ", e, " (", runtime::DTypeString(actual.dtype()),
                          " vs ", runtime::DTypeString(expected.dtype()), ")");
    }
  }
  return "";
}

namespace {

void CollectOps(const Expr& e, std::vector<std::string>* out) {
  if (!e.defined()) return;
  if (const auto* call = e.as<rx::CallNode>()) {
    if (const auto* op = call->op.as<OpNode>()) {
      if (op->name != "relax.call_tir") out->push_back(op->name);
    }
    for (const Expr& a : call->args) CollectOps(a, out);
  } else if (const auto* seq = e.as<rx::SeqExprNode>()) {
    for (const rx::BindingBlock& block : seq->blocks) {
      for (const rx::Binding& b : block->bindings) {
        if (const auto* vb = b.as<rx::VarBindingNode>()) CollectOps(vb->value, out);
        if (const auto* mc = b.as<rx::MatchCastNode>()) CollectOps(mc->value, out);
      }
    }
    CollectOps(seq->body, out);
  } else if (const auto* f = e.as<rx::FunctionNode>()) {
    CollectOps(f->body, out);
  } else if (const auto* i = e.as<rx::IfNode>()) {
    CollectOps(i->true_branch, out);
    CollectOps(i->false_branch, out);
  } else if (const auto* t = e.as<rx::TupleNode>()) {
    for (const Expr& x : t->fields) CollectOps(x, out);
  } else if (const auto* g = e.as<rx::TupleGetItemNode>()) {
    CollectOps(g->tuple, out);
  }
}

}  // namespace

std::string Program(const std::string& params, const std::string& ret, const std::vector<std::string>& body) {
  std::string s = absl::StrCat("@I.ir_module\nclass Module:\n    @R.function\n    def main(", params, ") -> ", ret,
                               ":\n");
  if (params.find("\"n\"") != std::string::npos) s += "        n = T.int64()\n";
  s += "        with R.dataflow():\n";
  for (const std::string& line : body) absl::StrAppend(&s, "            ", line, "\n");
  s += "            R.output(gv)\n        return gv\n";
  return s;
}

std::vector<std::string> RemainingOps(const IRModule& module) {
  std::vector<std::string> out;
  for (const auto& [gv, f] : module.Functions()) {
    if (f.as<rx::FunctionNode>()) CollectOps(f, &out);
  }
  return out;
}

std::string CheckAgainstNumpy(const std::string& source, const std::vector<InputSpec>& specs, const std::string& code,
                              double rtol, double atol) {
  absl::StatusOr<ObjectRef> parsed = script::ParseScript(source, "test.py");
  if (!parsed.ok()) return absl::StrCat("parse: ", parsed.status().ToString());
  absl::StatusOr<IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  if (!legal.ok()) return absl::StrCat("legalize: ", legal.status().ToString());
  std::vector<std::string> left = RemainingOps(*legal);
  if (!left.empty()) return "ops left after legalization: " + absl::StrJoin(left, ", ");
  const auto* main = legal->Lookup("main").as<rx::FunctionNode>();
  if (main == nullptr) return "no main";
  std::vector<std::string> names;
  for (const Var& p : main->params) names.push_back(p->name);
  std::vector<runtime::Tensor> inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    inputs.push_back(Random(specs[i].shape, specs[i].dtype, static_cast<uint32_t>(17 + i)));
  }
  absl::StatusOr<std::vector<runtime::Tensor>> expected = Numpy(code, names, inputs);
  if (!expected.ok()) return expected.status().ToString();
  for (driver::RunTarget target : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
    absl::StatusOr<std::vector<runtime::Tensor>> got = RunRelax(*legal, "main", inputs, target);
    std::string where = driver::RunTargetName(target);
    if (!got.ok()) return absl::StrCat(where, ": ", got.status().ToString());
    if (got->size() != expected->size()) {
      return absl::StrCat(where, ": ", got->size(), " results, numpy gave ", expected->size());
    }
    for (size_t i = 0; i < got->size(); ++i) {
      std::string diff = Compare((*got)[i], (*expected)[i], rtol, atol);
      if (!diff.empty()) return absl::StrCat(where, ": result ", i, ": ", diff);
    }
  }
  return "";
}

}  // namespace kiln::relax::legalize::testing
