#include "compiler/tir/analysis/allocation_size.h"

#include <string>

#include "compiler/tir/analysis/testing.h"
#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT

using testing::ParseModule;
using testing::kPrimFuncHeader;

TEST(AllocationSizeTest, FittingAllocationsPass) {
  IRModule m = ParseModule(std::string(kPrimFuncHeader) +
                           "def f(A: T.Buffer((8,), \"float32\")):\n"
                           "    B = T.alloc_buffer((1024, 1024), \"float32\")\n"
                           "    B[0, 0] = A[0]\n"
                           "    A[1] = B[0, 0]\n");
  EXPECT_TRUE(CheckAllocationSizes(m).ok());
}

// The parser accepts the 2^33-element cache (as TVM does); the check names it and its line.
TEST(AllocationSizeTest, SBlockAllocationOverflowingInt32IsRefused) {
  IRModule m = ParseModule(std::string("from tvm.script import tirx as T\n\n@T.prim_func(s_tir=True)\n") +
                           "def f(A: T.Buffer((8,), \"float32\")):\n"
                           "    with T.sblock(\"root\"):\n"
                           "        C = T.sblock_alloc_buffer((2048, 2048, 2048), \"float32\")\n"
                           "        T.reads()\n"
                           "        T.writes()\n"
                           "        T.evaluate(0)\n");
  absl::Status st = CheckAllocationSizes(m);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("k.py:6:"), std::string::npos) << st;
  EXPECT_NE(st.message().find("allocation of buffer C (2048 x 2048 x 2048 elements of float32) is too large: its "
                              "element count overflows the index type"),
            std::string::npos)
      << st;
}

TEST(AllocationSizeTest, Int64ExtentsWidenTheIndexButNotPastInt64Bytes) {
  IRModule ok = ParseModule(std::string(kPrimFuncHeader) +
                            "def f(A: T.Buffer((8,), \"float32\")):\n"
                            "    B = T.alloc_buffer((T.int64(65536), T.int64(65536)), \"float32\")\n"
                            "    B[0, 0] = A[0]\n");
  EXPECT_TRUE(CheckAllocationSizes(ok).ok());
  IRModule bad = ParseModule(std::string(kPrimFuncHeader) +
                             "def f(A: T.Buffer((8,), \"float32\")):\n"
                             "    B = T.alloc_buffer((T.int64(4611686018427387904), T.int64(4)), \"float32\")\n"
                             "    B[0, 0] = A[0]\n");
  absl::Status st = CheckAllocationSizes(bad);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("overflows"), std::string::npos) << st;
}

}  // namespace
}  // namespace kiln::tir
