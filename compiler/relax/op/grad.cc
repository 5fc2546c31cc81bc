// Gradient operators (R.grad.*), as TVM's relax.grad namespace defines them: the checkpoint
// markers and no_grad are identities on their argument, and each *_backward operator returns a
// gradient of the type of the forward input it differentiates (its second argument). Their
// attributes are those of the forward operator (nll_loss, pool2d, take).
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

InferFn TypeOfArg(size_t i) {
  return [i](const ir::relax::Call& call) -> absl::StatusOr<Type> { return ArgType(call, i); };
}

}  // namespace

void RegisterGradOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "grad.no_grad", {"input"}, {}, TypeOfArg(0));
  // Gradient checkpoint markers: identity on their argument.
  for (const char* name : {"grad.start_checkpoint", "grad.end_checkpoint"}) AddOp(ops, name, {"x"}, {}, TypeOfArg(0));
  OpSchema& nll = AddOp(ops, "grad.nll_loss_backward", {"output_grad", "predictions", "targets", "weights"},
                        {StringAttrSpec("reduction", "mean"), IntAttrSpec("ignore_index", -100)}, TypeOfArg(1));
  nll.min_args = 3;
  for (const char* kind : {"max", "avg"}) {
    // TVM's wrapper keeps the window attributes as given; out_layout defaults to layout.
    OpSchema& pool = AddOp(ops, absl::StrCat("grad.", kind, "_pool2d_backward"), {"output_grad", "data"},
                           {IntArrayAttrSpec("pool_size", {1, 1}), IntArrayAttrSpec("strides", {1, 1}),
                            IntArrayAttrSpec("dilation", {1, 1}), IntArrayAttrSpec("padding", {0, 0, 0, 0}),
                            BoolAttrSpec("ceil_mode", false), BoolAttrSpec("count_include_pad", false),
                            StringAttrSpec("layout", "NCHW"), OptionalStringAttrSpec("out_layout")},
                           TypeOfArg(1));
    pool.finalize_attrs = [](Map<String, ObjectRef>* attrs) {
      if (!attrs->Get(String("out_layout")).defined()) attrs->Set(String("out_layout"), attrs->Get(String("layout")));
    };
  }
  AddOp(ops, "grad.take_backward", {"output_grad", "x", "indices"},
        {OptionalIntAttrSpec("axis"), StringAttrSpec("mode", "fast")}, TypeOfArg(1));
}

}  // namespace kiln::relax
