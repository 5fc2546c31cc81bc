// LowerRuntimeBuiltin: the runtime-facing Relax operators become what the VM executes.
//
//   builtin.alloc_tensor(shape, dtype, dev, scope)  -> s = vm.alloc_storage([nbytes], dev, uint8,
//                                                      scope); vm.alloc_tensor(s, 0, shape, dtype)
//   memory.alloc_storage / memory.alloc_tensor     -> vm.alloc_storage / vm.alloc_tensor
//   memory.kill_storage / memory.kill_tensor       -> vm.kill_object
//   vm.call_tir_dyn(f, (args))                     -> vm.builtin.call_tir_dyn(f, *args)
//   reshape / shape_of / tensor_to_shape           -> vm.builtin.reshape / shape_of / tensor_to_shape
//   memory.ensure_zero_offset                      -> vm.builtin.ensure_zero_offset
//   to_vdevice(x, "kind:id:scope")                 -> vm.builtin.to_device(x, dev_type, id, scope)
//   make_closure(f, (captured))                    -> vm.builtin.make_closure(f, *captured)
//   invoke_closure(c, (args))                      -> call_builtin_with_ctx(vm.builtin.invoke_closure,
//                                                                         (c, *args))
//   call_packed(f, *args)                          -> f(*args)
//   shape_to_tensor / print / assert_op            -> relax.run.shape_to_tensor / print / assert_op
//   hint_on_device(x) / builtin.stop_lift_params(x) -> x (annotations with no run-time effect)
//
// Why: VMCodeGen only knows packed calls, kernel calls, VM function calls and the few relax.vm.*
// operators (passes.h, THE VM-LOWERED FORM). The names and argument orders are those of TVM's
// runtime (../shared/notes/tvm-reference.md §3.1), so an executable calls the same builtins. TVM
// splits builtin.alloc_tensor off into a LowerAllocTensor pass; kiln does it here, where the other
// allocation forms are lowered. Operators not listed are left alone.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// DLPack device type of a vdevice kind (TVM's Target::GetTargetDeviceType), or -1.
int DeviceType(const std::string& kind) {
  if (kind == "llvm" || kind == "c" || kind == "cpu") return 1;
  if (kind == "cuda" || kind == "nvptx") return 2;
  if (kind == "opencl") return 4;
  if (kind == "vulkan") return 7;
  if (kind == "metal") return 8;
  if (kind == "rocm") return 10;
  if (kind == "webgpu") return 15;
  return -1;
}

rx::Call MakeOpCall(const char* name, Array<Expr> args) { return rx::Call(Op(name), std::move(args)); }

// The args of a tuple argument (make_closure's captured values, invoke_closure's args).
absl::StatusOr<std::vector<Expr>> TupleFields(const Expr& e, const std::string& op) {
  if (const auto* t = e.as<rx::TupleNode>()) return t->fields.ToVector();
  return absl::InvalidArgumentError(op + " expects its arguments as a tuple expression");
}

class LowerBuiltinRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<Expr> RewriteValue(const Expr& value, BlockBuilder* bb) override {
    absl::StatusOr<Expr> out = BindingRewriter::RewriteValue(value, bb);
    if (!out.ok()) return out;
    const auto* call = out->as<rx::CallNode>();
    if (call == nullptr || !call->op.as<OpNode>()) return out;
    rx::Call c = Downcast<rx::Call>(*out);
    const std::string& op = call->op.as<OpNode>()->name;
    Type ty = c->ty;
    if (op == "relax.builtin.alloc_tensor") return AllocTensor(c, bb);
    if (op == "relax.memory.alloc_storage") {
      // (size, virtual_device_index, storage_scope, dtype) -> (size, device_index, uint8, scope)
      return Typed(MakeOpCall("relax.vm.alloc_storage", {c->args[0], c->args[1], MakeDType(DataType::UInt(8)), c->args[2]}),
                   module_);
    }
    if (op == "relax.memory.alloc_tensor") {
      rx::Call vm = c;
      vm.CopyOnWrite()->op = Op("relax.vm.alloc_tensor");
      return Expr(vm);
    }
    if (op == "relax.memory.kill_storage" || op == "relax.memory.kill_tensor") {
      return Typed(MakeOpCall("relax.vm.kill_object", {c->args[0]}), module_);
    }
    if (op == "relax.vm.call_tir_dyn") {
      absl::StatusOr<std::vector<Expr>> fields = TupleFields(c->args[1], "R.vm.call_tir_dyn");
      if (!fields.ok()) return fields.status();
      std::vector<Expr> args{c->args[0]};
      args.insert(args.end(), fields->begin(), fields->end());
      return Expr(MakePackedCall("vm.builtin.call_tir_dyn", Array<Expr>(args), VoidType()));
    }
    if (op == "relax.reshape") {
      if (!ExprType(c->args[1]).as<ShapeTypeNode>()) {
        return absl::InvalidArgumentError("R.reshape: the new shape must be a shape value to lower to vm.builtin.reshape");
      }
      return Expr(MakePackedCall("vm.builtin.reshape", {c->args[0], c->args[1]}, ty));
    }
    if (op == "relax.shape_of") return Expr(MakePackedCall("vm.builtin.shape_of", {c->args[0]}, ty));
    if (op == "relax.tensor_to_shape") return Expr(MakePackedCall("vm.builtin.tensor_to_shape", {c->args[0]}, ty));
    if (op == "relax.memory.ensure_zero_offset") {
      return Expr(MakePackedCall("vm.builtin.ensure_zero_offset", {c->args[0]}, ty));
    }
    if (op == "relax.shape_to_tensor") return Expr(MakePackedCall("relax.run.shape_to_tensor", c->args, ty));
    if (op == "relax.print") return Expr(MakePackedCall("relax.run.print", c->args, ty));
    if (op == "relax.assert_op") return Expr(MakePackedCall("relax.run.assert_op", c->args, ty));
    if (op == "relax.to_vdevice") return ToDevice(c);
    if (op == "relax.make_closure") {
      absl::StatusOr<std::vector<Expr>> fields = TupleFields(c->args[1], "R.make_closure");
      if (!fields.ok()) return fields.status();
      std::vector<Expr> args{c->args[0]};
      args.insert(args.end(), fields->begin(), fields->end());
      return Expr(MakePackedCall("vm.builtin.make_closure", Array<Expr>(args), AnyType::Make()));
    }
    if (op == "relax.invoke_closure") {
      absl::StatusOr<std::vector<Expr>> fields = TupleFields(c->args[1], "R.invoke_closure");
      if (!fields.ok()) return fields.status();
      std::vector<Expr> args{c->args[0]};
      args.insert(args.end(), fields->begin(), fields->end());
      rx::ExternFunc f("vm.builtin.invoke_closure");
      f.CopyOnWrite()->ty = PackedFuncType::Make();
      absl::StatusOr<Expr> packed_args = Typed(rx::Tuple(Array<Expr>(args)), module_);
      if (!packed_args.ok()) return packed_args.status();
      rx::Call with_ctx(Op("relax.call_builtin_with_ctx"), {f, *packed_args}, {}, {ty});
      with_ctx.CopyOnWrite()->ty = ty;
      return Expr(with_ctx);
    }
    if (op == "relax.call_packed") {
      if (c->args.empty()) return absl::InvalidArgumentError("R.call_packed without a callee");
      rx::Call direct(c->args[0], Array<Expr>(c->args.begin() + 1, c->args.end()), {}, c->ty_args, c->span);
      direct.CopyOnWrite()->ty = ty;
      return Expr(direct);
    }
    if (op == "relax.hint_on_device" || op == "relax.builtin.stop_lift_params") return c->args[0];
    return out;
  }

 private:
  // builtin.alloc_tensor: a storage of exactly the tensor's bytes, and the tensor at offset 0.
  absl::StatusOr<Expr> AllocTensor(const rx::Call& c, BlockBuilder* bb) {
    const auto* shape = c->args[0].as<rx::ShapeExprNode>();
    const auto* dtype = c->args[1].as<rx::DataTypeImmNode>();
    if (shape == nullptr || dtype == nullptr) {
      return absl::InvalidArgumentError("R.builtin.alloc_tensor needs a shape expression and a dtype to be lowered");
    }
    PrimExpr nbytes = IntImm(DataType::Int(64), (dtype->value.bits() * dtype->value.lanes() + 7) / 8);
    int64_t constant = 1;
    std::vector<PrimExpr> symbolic;
    for (const PrimExpr& d : shape->values) {
      if (const auto* imm = d.as<IntImmNode>()) {
        constant *= imm->value;
      } else {
        symbolic.push_back(d);
      }
    }
    nbytes = IntImm(DataType::Int(64), constant * nbytes.as<IntImmNode>()->value);
    for (const PrimExpr& d : symbolic) {
      nbytes = Mul(nbytes, d.dtype() == DataType::Int(64) ? d : PrimExpr(Cast(DataType::Int(64), d)));
    }
    Expr dev = c->args.size() > 2 ? c->args[2] : Expr(MakeInt64(0));
    Expr scope = c->args.size() > 3 ? c->args[3] : Expr(MakeString("global"));
    absl::StatusOr<Var> storage = bb->Emit(
        MakeOpCall("relax.vm.alloc_storage", {MakeShape({nbytes}), dev, MakeDType(DataType::UInt(8)), scope}), "storage");
    if (!storage.ok()) return storage.status();
    return Typed(MakeOpCall("relax.vm.alloc_tensor", {*storage, MakeInt64(0), c->args[0], c->args[1], dev}), module_);
  }

  absl::StatusOr<Expr> ToDevice(const rx::Call& c) {
    const auto* v = c->attrs.Get(String("dst_vdevice")).as<StringNode>();
    std::vector<std::string> parts = v ? absl::StrSplit(v->value, ':') : std::vector<std::string>{};
    int dev_type = parts.empty() ? -1 : DeviceType(parts[0]);
    int64_t dev_id = 0;
    if (dev_type < 0 || parts.size() < 2 || !absl::SimpleAtoi(parts[1], &dev_id)) {
      return absl::InvalidArgumentError(absl::StrCat("R.to_vdevice: cannot lower the vdevice '", v ? v->value : "",
                                                     "' to a device"));
    }
    std::string scope = parts.size() > 2 ? parts[2] : "global";
    return Expr(MakePackedCall("vm.builtin.to_device",
                               {c->args[0], MakeInt64(dev_type), MakeInt64(dev_id), MakeString(scope)}, c->ty));
  }
};

}  // namespace

absl::StatusOr<IRModule> LowerRuntimeBuiltin(const IRModule& module) { return LowerBuiltinRewriter(module).Run(); }

}  // namespace kiln::relax::transform
