// The fusion passes on legalized corpus programs (../shared/corpus/relax): LegalizeOps, then
// AnnotateTIROpPattern, FuseOps and FuseTIR, as the pipeline runs them. Each program must come out
// well formed, with TIR that verifies, with the expected number of kernel calls left in main, and
// computing what the unfused legalized program computes (interpreter and LLVM). A program whose
// operators the legalizer does not cover yet is skipped with the legalizer's message.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/relax/transform/fusion_test_util.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "compiler/tir/analysis/verifier.h"
#include "gtest/gtest.h"
#include "tests/util/shared_dir.h"

namespace kiln::relax::transform {
namespace {

std::string ReadCorpus(const std::string& name) {
  absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
  EXPECT_TRUE(shared.ok()) << shared.status();
  if (!shared.ok()) return "";
  std::ifstream in(*shared + "/corpus/relax/" + name + ".py");
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountKernelCalls(const ir::IRModule& m) {
  int n = 0;
  const auto* main = m.Lookup("main").as<ir::relax::FunctionNode>();
  for (const auto& block : main->body.as<ir::relax::SeqExprNode>()->blocks) {
    for (const auto& b : block->bindings) {
      const auto* vb = b.as<ir::relax::VarBindingNode>();
      const auto* call = vb ? vb->value.as<ir::relax::CallNode>() : nullptr;
      const auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
      if (op && op->name == "relax.call_tir") ++n;
    }
  }
  return n;
}

struct Case {
  const char* name;
  int calls_after_fusion;  // call_tir bindings left in main
};

class FusionCorpus : public ::testing::TestWithParam<Case> {};

TEST_P(FusionCorpus, FusesAndComputesTheSame) {
  const Case& c = GetParam();
  ir::IRModule parsed = testing::ParseModule(ReadCorpus(c.name));
  absl::StatusOr<ir::IRModule> legal = legalize::LegalizeOps(parsed);
  if (!legal.ok()) GTEST_SKIP() << "not legalized yet: " << legal.status();

  ir::IRModule mod = *legal;
  for (auto pass : {AnnotateTIROpPattern, FuseOps, FuseTIR}) {
    absl::StatusOr<ir::IRModule> next = pass(mod);
    ASSERT_TRUE(next.ok()) << next.status();
    mod = *next;
    ASSERT_TRUE(CheckWellFormed(mod, nullptr).ok()) << CheckWellFormed(mod, nullptr);
  }
  ASSERT_TRUE(tir::VerifyModuleTIR(mod, nullptr).ok()) << tir::VerifyModuleTIR(mod, nullptr);
  EXPECT_EQ(CountKernelCalls(mod), c.calls_after_fusion) << script::printer::Print(mod);

  const auto* main = parsed.Lookup("main").as<ir::relax::FunctionNode>();
  std::vector<runtime::Tensor> inputs;
  for (size_t i = 0; i < main->params.size(); ++i) {
    const auto* tt = main->params[i]->ty.as<ir::TensorTypeNode>();
    const auto* shape = tt ? tt->shape.as<ir::relax::ShapeExprNode>() : nullptr;
    ASSERT_NE(shape, nullptr) << "corpus cases here take static tensors";
    std::vector<int64_t> dims;
    for (const ir::PrimExpr& d : shape->values) dims.push_back(d.as<ir::IntImmNode>()->value);
    inputs.push_back(legalize::testing::Random(dims, tt->dtype.ToString(), 11 + static_cast<uint32_t>(i)));
  }
  for (driver::RunTarget t : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
    SCOPED_TRACE(driver::RunTargetName(t));
    absl::StatusOr<std::vector<runtime::Tensor>> want = legalize::testing::RunRelax(*legal, "main", inputs, t);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<std::vector<runtime::Tensor>> got = legalize::testing::RunRelax(testing::PublicKernels(mod), "main", inputs, t);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), want->size());
    for (size_t k = 0; k < got->size(); ++k) EXPECT_EQ(legalize::testing::Compare((*got)[k], (*want)[k]), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, FusionCorpus,
                         ::testing::Values(Case{"001_add_multiply", 1}, Case{"002_matmul_relu", 1},
                                           Case{"016_const_and_broadcast", 1},
                                           Case{"017_stateful_mlp_params", 2}, Case{"018_layer_norm", 1},
                                           Case{"019_where_compare", 1}, Case{"020_unary_math", 3}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// Every corpus program the legalizer takes: the fusion passes must accept it and keep it well
// formed (If, recursion, closures, match_cast, in-place and multi-output calls included).
TEST(FusionCorpusSweep, EveryLegalizedProgramStaysWellFormed) {
  absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
  ASSERT_TRUE(shared.ok()) << shared.status();
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(*shared + "/corpus/relax")) {
    std::string file = entry.path().filename().string();
    if (absl::EndsWith(file, ".py") && !absl::EndsWith(file, ".ref.py")) names.push_back(file.substr(0, file.size() - 3));
  }
  std::sort(names.begin(), names.end());
  int fused_programs = 0;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(ReadCorpus(name), name + ".py");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<ir::IRModule> mod = legalize::LegalizeOps(script::AsModule(*parsed));
    if (!mod.ok()) continue;  // operators not legalized yet
    for (auto pass : {AnnotateTIROpPattern, FuseOps, FuseTIR, DeadCodeElimination}) {
      absl::StatusOr<ir::IRModule> next = pass(*mod);
      ASSERT_TRUE(next.ok()) << next.status();
      mod = next;
      ASSERT_TRUE(CheckWellFormed(*mod, nullptr).ok()) << CheckWellFormed(*mod, nullptr);
    }
    ASSERT_TRUE(tir::VerifyModuleTIR(*mod, nullptr).ok()) << tir::VerifyModuleTIR(*mod, nullptr);
    for (const auto& [gv, f] : mod->Functions()) fused_programs += absl::StartsWith(gv->name, "fused_") ? 1 : 0;
  }
  EXPECT_GT(fused_programs, 0);
}

}  // namespace
}  // namespace kiln::relax::transform
