#include "compiler/target/source/gpu/gpu_printer.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tir/analysis/device_kernel.h"

namespace kiln::codegen::gpusrc {

using namespace ir;  // NOLINT

absl::StatusOr<KernelSignature> GPUPrinter::EmitKernel(const PrimFunc& f, std::ostringstream* out) {
  names_.clear();
  used_names_.clear();
  space_.clear();
  shared_decls_.str("");
  shared_decls_.clear();
  dynamic_shared_ = false;
  fname_ = symbol_ = f->GetGlobalSymbol();
  packed_ = false;
  status_ = absl::OkStatus();
  KernelSignature sig;
  sig.name = fname_;
  if (fname_.empty()) return absl::InvalidArgumentError(absl::StrCat(BackendName(), ": a kernel without a global_symbol"));
  auto tags = f->attrs.Get(String("tir.kernel_launch_params"));
  if (const auto* arr = tags.as<ArrayNode>()) {
    for (const ObjectRef& t : arr->data) {
      if (const auto* s = t.as<StringNode>()) sig.launch_tags.push_back(s->value);
    }
  }
  // A data handle's element type is the one its buffers are accessed with (every access casts, so
  // this is for readability and for the compiler's alias analysis).
  const auto accesses = tir::HandleAccesses(f->body);
  std::vector<std::string> params;
  for (const Var& v : f->params) {
    sig.params.push_back(v.dtype());
    std::string name = Name(v.get());
    if (v.dtype().is_handle()) {
      space_[v.get()] = GlobalSpace();
      auto it = accesses.find(v.get());
      std::string elem_type = "uint8_t";
      if (it != accesses.end() && !it->second.mixed) elem_type = csrc::StorageType(it->second.first);
      // No restrict: one tensor may be passed for two parameters.
      params.push_back(absl::StrCat(GlobalSpace(), elem_type, "* ", name));
    } else if (v.dtype().is_bool() || v.dtype().is_vector() || csrc::CType(v.dtype()).empty() ||
               v.dtype().is_bfloat() || (v.dtype().is_float() && v.dtype().bits() == 16)) {
      return absl::InvalidArgumentError(absl::StrCat(BackendName(), " (", fname_, "): kernel parameter ", v->name,
                                                     " has unsupported type ", v.dtype().ToString()));
    } else {
      params.push_back(absl::StrCat(csrc::CType(v.dtype()), " ", name));
    }
  }
  body_.str("");
  body_.clear();
  indent_ = 1;
  in_parallel_ = false;
  VisitStmt(f->body);
  if (!status_.ok()) return status_;
  *out << KernelHead(f, fname_) << "(" << absl::StrJoin(params, ", ") << ") {\n"
       << shared_decls_.str() << body_.str() << "}\n\n";
  return sig;
}

std::string GPUPrinter::PointerQualifier(const VarNode* data) {
  auto it = space_.find(data);
  return it == space_.end() ? "" : it->second;
}

void GPUPrinter::VisitStmt_(const AttrStmtNode* op) {
  const auto* iv = op->node.as<IterVarNode>();
  if (op->attr_key != "thread_extent" || iv == nullptr) return csrc::CodegenC::VisitStmt_(op);
  bool block = false;
  int dim = 0;
  if (!tir::ParseThreadTag(iv->thread_tag, &block, &dim)) {
    Fail(absl::StrCat("unsupported thread tag ", iv->thread_tag));
    return;
  }
  std::string t = csrc::CType(iv->var.dtype());
  Line(absl::StrCat(t, " ", Name(iv->var.get()), " = (", t, ")", ThreadIndex(block, dim), ";"));
  VisitStmt(op->body);
}

void GPUPrinter::VisitStmt_(const AllocBufferNode* op) {
  const Buffer& b = op->buffer;
  std::string scope = b->scope();
  std::optional<int64_t> count = tir::ConstantElementCount(b);
  if (!count) {
    Fail(absl::StrCat("allocation ", b->name, " has a non-constant size"));
    return;
  }
  if (scope == "shared.dyn") {
    // One per kernel: the launch passes one size (SplitHostDevice's tir.use_dyn_shared_memory).
    std::string dynamic = DynamicSharedDecl(csrc::StorageType(b->dtype), Name(b->data.get()));
    if (dynamic.empty() || dynamic_shared_) {
      Fail(dynamic.empty()
               ? absl::StrCat("allocation ", b->name, " in scope shared.dyn: the dialect has no dynamic shared memory")
               : absl::StrCat("allocation ", b->name, ": a kernel has one dynamic shared allocation"));
      return;
    }
    dynamic_shared_ = true;
    space_[b->data.get()] = SharedSpace();
    shared_decls_ << "  " << dynamic << "\n";
    VisitStmt(op->body);
    return;
  }
  std::string decl = absl::StrCat(csrc::StorageType(b->dtype), " ", Name(b->data.get()), "[",
                                  std::max<int64_t>(*count, 1), "];");
  if (scope == "shared") {
    space_[b->data.get()] = SharedSpace();
    shared_decls_ << "  " << SharedDecl() << " " << decl << "\n";
    VisitStmt(op->body);
  } else if (scope == "local" || scope == "global") {
    // A "global" allocation inside a kernel is per-thread scratch, as in TVM's lowering.
    Line("{");
    ++indent_;
    Line(decl);
    VisitStmt(op->body);
    --indent_;
    Line("}");
  } else {
    Fail(absl::StrCat("allocation ", b->name, " in unsupported scope ", scope));
  }
}

void GPUPrinter::VisitStmt_(const AssertStmtNode* op) { Fail("assertions in device code are not supported"); }

std::string GPUPrinter::VisitExpr_(const CallNode* op) {
  const auto* o = op->op.as<OpNode>();
  if (o != nullptr && o->name == "tirx.tvm_storage_sync") {
    const auto* scope = op->args.empty() ? nullptr : op->args[0].as<StringImmNode>();
    std::string s = scope != nullptr ? scope->value : "?";
    std::string barrier = Barrier(s);
    if (barrier.empty()) {
      Fail(absl::StrCat("T.tvm_storage_sync(\"", s, "\") is not supported"));
      return "0";
    }
    return barrier;
  }
  if (op->op.as<GlobalVarNode>() != nullptr) {
    Fail("calls between PrimFuncs in device code are not supported");
    return "0";
  }
  return csrc::CodegenC::VisitExpr_(op);
}

}  // namespace kiln::codegen::gpusrc
