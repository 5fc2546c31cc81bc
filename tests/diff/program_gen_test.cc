// The generator covers what the differential runs are meant to exercise: here, that the seeds a
// CI run uses include tiled loops with T.likely guards that LoopPartition really splits.
#include "compiler/ir/structural.h"
#include "compiler/tir/transform/passes.h"
#include "gtest/gtest.h"
#include "tests/diff/program_gen.h"

namespace kiln::difftest {
namespace {

TEST(ProgramGenTest, CiSeedsIncludeLoopsLoopPartitionSplits) {
  int partitioned = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    ir::PrimFunc f = tir::transform::Simplify(GenerateProgram(seed).func);
    if (!tir::transform::LoopPartition(f).same_as(f)) ++partitioned;
  }
  EXPECT_GE(partitioned, 10);
}

TEST(ProgramGenTest, SameSeedSameProgram) {
  EXPECT_TRUE(ir::StructuralEqual(GenerateProgram(77).func, GenerateProgram(77).func));
}

}  // namespace
}  // namespace kiln::difftest
