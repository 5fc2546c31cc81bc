// The TIR IRBuilder: a stack of frames that turns a sequence of "begin / emit / end" calls into
// nested TIR. The TVMScript parser is a thin layer over it, and C++ code can build TIR with it the
// way a script reads, without nesting constructor calls by hand.
//
// Two kinds of frames, as in TVMScript's semantics:
//  * explicit frames (a `with`, `for`, `if`, `while` body, a function, a block) end with End*();
//  * implicit frames wrap "the rest of the enclosing block": `x: T.let[...] = v`,
//    `B = T.alloc_buffer(...)`, `T.decl_buffer`, `T.launch_thread`, `T.attr`. They collect the
//    statements that follow them and end together with the explicit frame that contains them.
//
// A builder is single-threaded and owned by one parse; nothing is shared between builders.
#ifndef KILN_COMPILER_SCRIPT_BUILDER_TIR_BUILDER_H_
#define KILN_COMPILER_SCRIPT_BUILDER_TIR_BUILDER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::script::builder {

// What a block frame accumulates until EndBlock() builds the SBlockRealize.
struct BlockData {
  std::string name;
  ir::Array<ir::IterVar> iter_vars;
  ir::Array<ir::PrimExpr> iter_values;
  ir::PrimExpr predicate;  // undefined = true
  ir::Array<ir::BufferRegion> reads, writes;
  bool reads_set = false, writes_set = false;
  ir::Stmt init;
  ir::Array<ir::Buffer> alloc_buffers;
  ir::Array<ir::MatchBufferRegion> match_buffers;
  ir::Map<ir::String, ir::ObjectRef> annotations;
};

// What a PrimFunc frame accumulates until EndPrimFunc().
struct PrimFuncData {
  std::string name;
  ir::Array<ir::Var> params;
  ir::Map<ir::Var, ir::Buffer> buffer_map;
  ir::Map<ir::String, ir::ObjectRef> attrs;
  ir::Type ret_type;
  bool s_tir = false;                  // body goes inside a root SBlock named "root"
  ir::Array<ir::Buffer> root_alloc_buffers;  // T.sblock_alloc_buffer at function level
  bool is_private = false;
};

class TIRBuilder {
 public:
  using Wrap = std::function<ir::Stmt(ir::Stmt body)>;

  TIRBuilder() = default;
  TIRBuilder(const TIRBuilder&) = delete;
  TIRBuilder& operator=(const TIRBuilder&) = delete;

  // Drops every open frame (after an error abandoned a function half-built).
  void Reset() { frames_.clear(); }

  // ---- functions
  void BeginPrimFunc(std::string name);
  PrimFuncData* func();  // the innermost function frame, or nullptr
  // Ends the function: adds global_symbol unless private, wraps the body in the root block for
  // s_tir functions.
  absl::StatusOr<ir::PrimFunc> EndPrimFunc(ir::Span span = {});

  // ---- generic scopes: a statement list that the caller wraps itself (loop/if/while bodies, init)
  void BeginScope();
  ir::Stmt EndScope();  // closes implicit frames inside it; Evaluate(0) when empty

  // ---- implicit frames: `wrap` receives the statements that follow, up to the end of the scope.
  void BeginImplicit(Wrap wrap);

  // ---- blocks
  void BeginBlock(std::string name);
  BlockData* block();  // innermost block frame, or nullptr when not inside one
  // The innermost block frame when no scope (loop, if, while, with body) was opened inside it
  // since; implicit frames (let bindings, allocations) do not count. nullptr otherwise.
  BlockData* top_block();
  ir::Stmt EndBlock(ir::Span span = {});  // returns the SBlockRealize (also emitted)

  // ---- statements
  void Emit(ir::Stmt s);

  // Frames left open (0 after a balanced build).
  size_t depth() const { return frames_.size(); }

  // Convenience for C++ users: `for` loops, ifs and the rest of TVMScript's statements.
  void For(ir::Var var, ir::PrimExpr min, ir::PrimExpr extent, ir::ForKind kind,
           const std::function<void()>& body);
  void Let(ir::Var var, ir::PrimExpr value);  // implicit frame
  void AllocBuffer(ir::Buffer buffer, ir::Map<ir::String, ir::ObjectRef> annotations = {});  // implicit

 private:
  enum class Kind { kFunc, kScope, kImplicit, kBlock };
  struct Frame {
    Kind kind;
    std::vector<ir::Stmt> stmts;
    Wrap wrap;                             // kImplicit
    std::unique_ptr<BlockData> block;      // kBlock
    std::unique_ptr<PrimFuncData> func;    // kFunc
  };
  // Ends implicit frames on top of the stack, folding each into its parent.
  void CloseImplicit();
  ir::Stmt TakeBody(Frame* f);

  std::vector<Frame> frames_;
};

// Joins statements: none -> Evaluate(0), one -> itself, more -> a flattened SeqStmt.
ir::Stmt MakeBody(std::vector<ir::Stmt> stmts);

}  // namespace kiln::script::builder

#endif  // KILN_COMPILER_SCRIPT_BUILDER_TIR_BUILDER_H_
