// The Relax IRBuilder: functions, binding blocks, dataflow blocks and if-branches as frames. A
// function or branch body is a SeqExpr whose blocks are the runs of plain bindings and the
// dataflow blocks in the order they were emitted. Single-threaded, owned by one parse.
#ifndef KILN_COMPILER_SCRIPT_BUILDER_RELAX_BUILDER_H_
#define KILN_COMPILER_SCRIPT_BUILDER_RELAX_BUILDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::script::builder {

struct FunctionData {
  std::string name;
  ir::Array<ir::Var> params;
  ir::Map<ir::String, ir::ObjectRef> attrs;
  ir::Type ret_ty;  // the annotation; undefined: the body's type
  bool is_pure = true;
  bool is_private = false;
};

class RelaxBuilder {
 public:
  RelaxBuilder() = default;
  RelaxBuilder(const RelaxBuilder&) = delete;
  RelaxBuilder& operator=(const RelaxBuilder&) = delete;

  // Drops every open frame (after an error abandoned a function half-built).
  void Reset() { frames_.clear(); }

  void BeginFunction(std::string name);
  FunctionData* func();  // innermost function frame, or nullptr
  // `result` is the returned expression; attrs get global_symbol unless the function is private
  // or nested (`top_level` false).
  absl::StatusOr<ir::relax::Function> EndFunction(ir::Expr result, bool top_level, ir::Span span = {});

  // A nested sequence (an if branch): EndSeq returns SeqExpr(blocks, body).
  void BeginSeq();
  ir::relax::SeqExpr EndSeq(ir::Expr body, ir::Span span = {});

  void BeginDataflow();
  bool in_dataflow() const;
  // Whether the open dataflow block binds `var` (R.output may name only those).
  bool BoundInDataflow(const ir::Var& var) const;
  // R.output ends the open dataflow block's construction: no binding may follow it, nor a second
  // R.output (TVM's block_ended).
  void EndDataflowOutputs();
  bool dataflow_ended() const;
  void EndDataflow(ir::Span span = {});

  void Emit(ir::relax::Binding binding);
  // The last binding emitted in the innermost sequence (an if branch being built), in its open
  // bindings or its last finished block; null when it has none.
  ir::relax::Binding LastBinding() const;

 private:
  enum class Kind { kFunc, kSeq, kDataflow };
  struct Frame {
    Kind kind;
    std::vector<ir::relax::BindingBlock> blocks;  // finished blocks (kFunc, kSeq)
    std::vector<ir::relax::Binding> bindings;     // the open block's bindings
    std::unique_ptr<FunctionData> func;
    bool ended = false;  // kDataflow: R.output was given
  };
  void FlushBindings(Frame* f);
  ir::relax::SeqExpr Finish(Frame* f, ir::Expr body, ir::Span span);
  std::vector<Frame> frames_;
};

}  // namespace kiln::script::builder

#endif  // KILN_COMPILER_SCRIPT_BUILDER_RELAX_BUILDER_H_
