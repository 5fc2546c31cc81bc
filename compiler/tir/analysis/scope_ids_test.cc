#include "compiler/tir/analysis/scope_ids.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using ir::ScopeBinding;

// One def per (binding, extents); an empty extent list is a deferred def.
class Defs {
 public:
  Defs& Add(ScopeBinding b, std::vector<int64_t> extents) {
    ir::Array<ir::Var> vars;
    ir::Array<ir::PrimExpr> ext;
    for (int64_t e : extents) {
      vars.push_back(ir::Var("v", ir::DataType::Int(32)));
      ext.push_back(ir::IntImm(ir::DataType::Int(32), e));
    }
    if (extents.empty()) vars.push_back(ir::Var("v", ir::DataType::Int(32)));
    stmts_.push_back(ir::ScopeIdDefStmt(vars, ext, b, ir::Evaluate(ir::IntImm(ir::DataType::Int(32), 0))));
    return *this;
  }
  std::string Check() const {
    std::vector<const ir::ScopeIdDefStmtNode*> defs;
    for (const ir::ScopeIdDefStmt& s : stmts_) defs.push_back(s.get());
    std::vector<std::string> errors = CheckScopeIdClosure(defs);
    return errors.empty() ? "" : errors.front();
  }

 private:
  std::vector<ir::ScopeIdDefStmt> stmts_;
};

TEST(ScopeIds, ConsistentLaunchesPass) {
  EXPECT_EQ(Defs().Add(ScopeBinding::kKernelCta, {4}).Add(ScopeBinding::kCtaThread, {128}).Add(ScopeBinding::kCtaWarp, {4})
                .Add(ScopeBinding::kWarpThread, {}).Check(),
            "");
  EXPECT_EQ(Defs().Add(ScopeBinding::kKernelCta, {8}).Add(ScopeBinding::kClusterCta, {2}).Check(), "");
  // A binding declared again begins the next launch, checked on its own.
  EXPECT_EQ(Defs().Add(ScopeBinding::kCtaWarp, {4}).Add(ScopeBinding::kCtaThread, {128}).Add(ScopeBinding::kCtaWarp, {8})
                .Add(ScopeBinding::kCtaThread, {256}).Check(),
            "");
  EXPECT_NE(Defs().Add(ScopeBinding::kCtaWarp, {4}).Add(ScopeBinding::kCtaThread, {128}).Add(ScopeBinding::kCtaWarp, {3})
                .Add(ScopeBinding::kCtaThread, {256}).Check(),
            "");
}

TEST(ScopeIds, ComplementMustDivide) {
  EXPECT_NE(Defs().Add(ScopeBinding::kCtaWarp, {3}).Add(ScopeBinding::kCtaThread, {100}).Check().find("non-divisible"),
            std::string::npos);
  // A cluster of 4 CTAs in a kernel of 1.
  EXPECT_NE(Defs().Add(ScopeBinding::kClusterCta, {2, 2}).Add(ScopeBinding::kKernelCta, {1}).Check().find("non-divisible"),
            std::string::npos);
}

TEST(ScopeIds, DerivationsMustAgree) {
  // cta->warp 4 x warp->thread 32 composes to 128 threads, not 64.
  EXPECT_NE(Defs().Add(ScopeBinding::kCtaWarp, {4}).Add(ScopeBinding::kWarpThread, {32}).Add(ScopeBinding::kCtaThread, {64})
                .Check()
                .find("inconsistent"),
            std::string::npos);
}

TEST(ScopeIds, ThreadCounts) {
  EXPECT_NE(Defs().Add(ScopeBinding::kCtaThread, {48}).Add(ScopeBinding::kWarpThread, {}).Check().find("multiple of 32"),
            std::string::npos);
  EXPECT_EQ(Defs().Add(ScopeBinding::kCtaThread, {48}).Check(), "");
  EXPECT_NE(Defs().Add(ScopeBinding::kClusterCtaPair, {}).Check().find("cta_id_in_pair"), std::string::npos);
}

}  // namespace
}  // namespace kiln::tir
