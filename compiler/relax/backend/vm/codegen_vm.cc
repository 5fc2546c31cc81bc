// One CodeGenVM per Relax function: walks the VM-lowered body (passes.h) and emits instructions.
// Every binding gets a register (a binding of a plain variable is a vm.builtin.copy, so that
// killing one register never kills another binding's value, as in TVM); leaves that are constants
// become immediates or pool entries and take no register.
#include "compiler/relax/backend/vm/codegen_vm.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/backend/vm/exec_builder.h"
#include "compiler/tir/functor.h"
#include "runtime/tensor.h"

namespace kiln::relax::backend {
namespace {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;
using vm::FuncInfo;
using vm::InstrArg;
using vm::RegName;

// The name a function has in the executable: its global_symbol, else its module name.
std::string SymbolOf(const GlobalVar& gv, const BaseFunc& func) {
  std::string symbol = func->GetGlobalSymbol();
  return symbol.empty() ? gv->name : symbol;
}

// TVM's HasVoidType: the value is the empty tuple, so the call's result is dropped.
bool HasVoidType(const Expr& e) {
  const auto* t = e->ty.as<TupleTypeNode>();
  return t != nullptr && t->fields.empty();
}

// The executable's dtype: the compiler's bool (uint1, as TIR spells it) is DLPack's kDLBool with 8
// bits, as TVM writes it and the runtime's tensors carry it.
DLDataType ToDL(DataType t) {
  if (t.is_bool()) return DLDataType{runtime::kDLBoolCode, 8, static_cast<uint16_t>(t.lanes())};
  return DLDataType{t.code(), static_cast<uint8_t>(t.bits()), static_cast<uint16_t>(t.lanes())};
}

class CodeGenVM {
 public:
  CodeGenVM(const IRModule& module, ExecBuilder* builder) : module_(module), builder_(builder) {}

  absl::Status Generate(const std::string& symbol, const rx::Function& func) {
    func_name_ = symbol;
    num_registers_ = 0;
    vars_.clear();
    std::vector<std::string> param_names;
    for (const Var& p : func->params) param_names.push_back(p->name);
    builder_->EmitFunction(symbol, param_names);
    for (const Var& p : func->params) vars_[p.get()] = InstrArg::Register(NewRegister());
    absl::StatusOr<InstrArg> ret = Visit(func->body);
    if (!ret.ok()) return ret.status();
    builder_->EmitRet(EnsureRegister(*ret));
    builder_->EndFunction(symbol);
    return builder_->status();
  }

 private:
  RegName NewRegister() { return num_registers_++; }

  absl::Status Error(const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat("VM codegen (function ", func_name_, "): ", message));
  }

  // Ret and If read registers: a constant result is copied into one first.
  InstrArg EnsureRegister(InstrArg arg) {
    if (arg.kind() == vm::ArgKind::kRegister) return arg;
    RegName r = NewRegister();
    builder_->EmitCall("vm.builtin.copy", {arg}, r);
    return InstrArg::Register(r);
  }

  absl::StatusOr<std::vector<InstrArg>> VisitAll(const Array<Expr>& exprs, size_t from = 0) {
    std::vector<InstrArg> out;
    for (size_t i = from; i < exprs.size(); ++i) {
      absl::StatusOr<InstrArg> a = Visit(exprs[i]);
      if (!a.ok()) return a.status();
      out.push_back(*a);
    }
    return out;
  }

  absl::StatusOr<InstrArg> Visit(const Expr& e) {
    if (!e.defined()) return Error("missing expression");
    if (const auto* n = e.as<rx::SeqExprNode>()) return VisitSeq(n);
    if (const auto* n = e.as<rx::CallNode>()) return VisitCall(n);
    if (const auto* n = e.as<rx::IfNode>()) return VisitIf(n);
    if (const auto* n = e.as<VarNode>()) {
      auto it = vars_.find(n);
      if (it == vars_.end()) return Error(absl::StrCat("variable ", n->name, " is used before it is bound"));
      return it->second;
    }
    if (const auto* n = e.as<rx::ConstantNode>()) {
      std::vector<int64_t> shape;
      for (const IntImm& d : n->shape) shape.push_back(d->value);
      InstrArg c = builder_->ConvertTensor(ToDL(n->dtype), shape, n->data);
      return c;
    }
    if (const auto* n = e.as<rx::ShapeExprNode>()) {
      std::vector<int64_t> shape;
      for (const PrimExpr& d : n->values) {
        const auto* imm = d.as<IntImmNode>();
        if (imm == nullptr) return Error("a symbolic shape reached VM codegen (VMShapeLower should have replaced it)");
        shape.push_back(imm->value);
      }
      return builder_->ConvertShape(shape);
    }
    if (const auto* n = e.as<rx::PrimValueNode>()) {
      if (const auto* i = n->value.as<IntImmNode>()) return builder_->ConvertInt(i->value);
      if (const auto* f = n->value.as<FloatImmNode>()) return builder_->ConvertFloat(f->value);
      return Error("a symbolic R.prim_value reached VM codegen (VMShapeLower should have replaced it)");
    }
    if (const auto* n = e.as<rx::StringImmNode>()) return builder_->ConvertString(n->value);
    if (const auto* n = e.as<rx::DataTypeImmNode>()) return builder_->ConvertDataType(ToDL(n->value));
    if (const auto* n = e.as<rx::TupleNode>()) {
      absl::StatusOr<std::vector<InstrArg>> fields = VisitAll(n->fields);
      if (!fields.ok()) return fields.status();
      RegName dst = NewRegister();
      builder_->EmitCall("vm.builtin.make_tuple", *fields, dst);
      return InstrArg::Register(dst);
    }
    if (const auto* n = e.as<rx::TupleGetItemNode>()) {
      absl::StatusOr<InstrArg> tuple = Visit(n->tuple);
      if (!tuple.ok()) return tuple.status();
      RegName dst = NewRegister();
      builder_->EmitCall("vm.builtin.tuple_getitem", {*tuple, builder_->ConvertInt(n->index)}, dst);
      return InstrArg::Register(dst);
    }
    if (const auto* n = e.as<GlobalVarNode>()) return VisitGlobalVar(n);
    if (const auto* n = e.as<rx::ExternFuncNode>()) {
      builder_->DeclareFunction(n->global_symbol, FuncInfo::Kind::kPackedFunc);
      return builder_->GetFunction(n->global_symbol);
    }
    if (e.as<rx::FunctionNode>()) return Error("a local function reached VM codegen (lambda-lift it first)");
    return Error(absl::StrCat("cannot generate code for ", e->type_key()));
  }

  absl::StatusOr<InstrArg> VisitSeq(const rx::SeqExprNode* seq) {
    for (const rx::BindingBlock& block : seq->blocks) {
      for (const rx::Binding& b : block->bindings) {
        Expr value;
        if (const auto* vb = b.as<rx::VarBindingNode>()) {
          value = vb->value;
        } else if (const auto* mc = b.as<rx::MatchCastNode>()) {
          value = mc->value;  // the checks it stands for are VMShapeLower's; the value passes through
        }
        absl::StatusOr<InstrArg> arg = Visit(value);
        if (!arg.ok()) return arg.status();
        if (value.as<VarNode>()) {
          // One register per binding, so that a kill of this binding leaves its source alone.
          RegName r = NewRegister();
          builder_->EmitCall("vm.builtin.copy", {*arg}, r);
          *arg = InstrArg::Register(r);
        }
        vars_[b->var.get()] = *arg;
      }
    }
    return Visit(seq->body);
  }

  absl::StatusOr<InstrArg> VisitGlobalVar(const GlobalVarNode* gv) {
    BaseFunc func = module_.Lookup(gv->name);
    FuncInfo::Kind kind = FuncInfo::Kind::kPackedFunc;
    std::string symbol = gv->name;
    if (func.defined()) {
      if (const auto* ef = func.as<rx::ExternFuncNode>()) {
        symbol = ef->global_symbol;
      } else {
        symbol = SymbolOf(GetRef<GlobalVar>(gv), func);
        if (func.as<rx::FunctionNode>()) kind = FuncInfo::Kind::kVMFunc;
      }
    }
    builder_->DeclareFunction(symbol, kind);
    return builder_->GetFunction(symbol);
  }

  absl::StatusOr<InstrArg> VisitCall(const rx::CallNode* call) {
    const auto* op = call->op.as<OpNode>();
    if (op != nullptr && op->name == "relax.null_value") return InstrArg::Register(vm::kVoidRegister);
    RegName dst = HasVoidType(GetRef<Expr>(call)) ? vm::kVoidRegister : NewRegister();
    if (op == nullptr) {
      absl::StatusOr<InstrArg> callee = Visit(call->op);
      if (!callee.ok()) return callee.status();
      absl::StatusOr<std::vector<InstrArg>> args = VisitAll(call->args);
      if (!args.ok()) return args.status();
      if (callee->kind() == vm::ArgKind::kFuncIdx) {
        builder_->EmitCall(*callee, *args, dst);
      } else {
        // A closure in a register.
        std::vector<InstrArg> with_closure = {InstrArg::Register(vm::kVMRegister), *callee};
        with_closure.insert(with_closure.end(), args->begin(), args->end());
        builder_->EmitCall("vm.builtin.invoke_closure", with_closure, dst);
      }
      return InstrArg::Register(dst);
    }
    const std::string& name = op->name;
    if (name == "relax.call_builtin_with_ctx") {
      // (func, Tuple(args)): the builtin gets the VM context first.
      const auto* tuple = call->args.size() == 2 ? call->args[1].as<rx::TupleNode>() : nullptr;
      if (tuple == nullptr) return Error("call_builtin_with_ctx takes a function and a tuple of arguments");
      absl::StatusOr<InstrArg> callee = Visit(call->args[0]);
      if (!callee.ok()) return callee.status();
      absl::StatusOr<std::vector<InstrArg>> args = VisitAll(tuple->fields);
      if (!args.ok()) return args.status();
      args->insert(args->begin(), InstrArg::Register(vm::kVMRegister));
      builder_->EmitCall(*callee, *args, dst);
      return InstrArg::Register(dst);
    }
    if (name == "relax.call_packed" || name == "relax.call_pure_packed") {
      // kiln's parser keeps R.call_packed("f", ...) as this operator with the ExternFunc first.
      if (call->args.empty()) return Error(absl::StrCat(name, " without a callee"));
      absl::StatusOr<InstrArg> callee = Visit(call->args[0]);
      if (!callee.ok()) return callee.status();
      absl::StatusOr<std::vector<InstrArg>> args = VisitAll(call->args, 1);
      if (!args.ok()) return args.status();
      builder_->EmitCall(*callee, *args, dst);
      return InstrArg::Register(dst);
    }
    if (name == "relax.vm.alloc_storage") {
      // (size, device_index, dtype, scope) -> alloc_storage(%vm, size, device_index, dtype, scope)
      if (call->args.size() != 4) return Error("R.vm.alloc_storage takes 4 arguments");
      absl::StatusOr<std::vector<InstrArg>> args = VisitAll(call->args);
      if (!args.ok()) return args.status();
      args->insert(args->begin(), InstrArg::Register(vm::kVMRegister));
      builder_->EmitCall("vm.builtin.alloc_storage", *args, dst);
      return InstrArg::Register(dst);
    }
    if (name == "relax.vm.alloc_tensor") {
      // (storage, offset, shape, dtype[, vdevice_index]): the memory scope of the module's vdevice
      // at that index, if it declares one, is passed as a fifth argument.
      if (call->args.size() != 4 && call->args.size() != 5) return Error("R.vm.alloc_tensor takes 4 or 5 arguments");
      absl::StatusOr<std::vector<InstrArg>> args = VisitAll(Array<Expr>(call->args.begin(), call->args.begin() + 4));
      if (!args.ok()) return args.status();
      std::string scope;
      if (call->args.size() == 5 && VDeviceScope(call->args[4], &scope)) args->push_back(builder_->ConvertString(scope));
      builder_->EmitCall("vm.builtin.alloc_tensor", *args, dst);
      return InstrArg::Register(dst);
    }
    if (name == "relax.vm.kill_object") {
      // Killing sets the register to None: null_value with the killed register as destination.
      if (call->args.size() != 1) return Error("R.vm.kill_object takes 1 argument");
      absl::StatusOr<InstrArg> obj = Visit(call->args[0]);
      if (!obj.ok()) return obj.status();
      if (obj->kind() != vm::ArgKind::kRegister) return Error("R.vm.kill_object of a value that is not in a register");
      builder_->EmitCall("vm.builtin.null_value", {}, obj->value());
      return *obj;
    }
    return Error(absl::StrCat("operator ", name,
                              " reached VM codegen; the Relax pipeline (LegalizeOps ... LowerRuntimeBuiltin) "
                              "should have lowered it"));
  }

  // The "memory_scope" of module vdevice `index_expr` (a PrimValue index), if there is one.
  bool VDeviceScope(const Expr& index_expr, std::string* scope) const {
    const auto* pv = index_expr.as<rx::PrimValueNode>();
    const auto* imm = pv != nullptr ? pv->value.as<IntImmNode>() : nullptr;
    if (imm == nullptr || imm->value < 0) return false;
    Array<GlobalInfo> vdevices = module_->global_infos.Get(String("vdevice"));
    if (imm->value >= static_cast<int64_t>(vdevices.size())) return false;
    const auto* s = vdevices[imm->value]->attrs.Get(String("memory_scope")).as<StringNode>();
    *scope = s != nullptr ? s->value : "global";
    return true;
  }

  absl::StatusOr<InstrArg> VisitIf(const rx::IfNode* ife) {
    absl::StatusOr<InstrArg> cond = Visit(ife->cond);
    if (!cond.ok()) return cond.status();
    RegName cond_reg = NewRegister();
    builder_->EmitCall("vm.builtin.read_if_cond", {*cond}, cond_reg);

    // If cond falls through into the true branch, which ends with a Goto over the false branch;
    // both branches copy their value into one merge register. Offsets are patched afterwards.
    int64_t if_instr = builder_->NextInstrIndex();
    builder_->EmitIf(InstrArg::Register(cond_reg), 3);
    int64_t true_start = builder_->NextInstrIndex();
    absl::StatusOr<InstrArg> t = Visit(ife->true_branch);
    if (!t.ok()) return t.status();
    RegName merge = NewRegister();
    builder_->EmitCall("vm.builtin.copy", {*t}, merge);
    int64_t goto_instr = builder_->NextInstrIndex();
    builder_->EmitGoto(1);
    int64_t false_offset = builder_->NextInstrIndex() - true_start + 1;
    absl::StatusOr<InstrArg> f = Visit(ife->false_branch);
    if (!f.ok()) return f.status();
    builder_->EmitCall("vm.builtin.copy", {*f}, merge);
    builder_->SetInstrWord(if_instr, 2, false_offset);
    builder_->SetInstrWord(goto_instr, 1, builder_->NextInstrIndex() - goto_instr);
    return InstrArg::Register(merge);
  }

  const IRModule& module_;
  ExecBuilder* builder_;
  std::string func_name_;
  RegName num_registers_ = 0;
  std::unordered_map<const Object*, InstrArg> vars_;  // a binding's variable -> its value
};

}  // namespace

absl::StatusOr<vm::Executable> VMCodeGen(const IRModule& module) {
  ExecBuilder builder;
  CodeGenVM codegen(module, &builder);
  for (const auto& [gv, func] : module.Functions()) {
    const auto* f = func.as<rx::FunctionNode>();
    if (f == nullptr) continue;
    absl::Status st = codegen.Generate(SymbolOf(gv, func), GetRef<rx::Function>(f));
    if (!st.ok()) return st;
  }
  return builder.Get();
}

}  // namespace kiln::relax::backend
