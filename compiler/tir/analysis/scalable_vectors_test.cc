#include "compiler/tir/analysis/scalable_vectors.h"

#include <string>

#include "compiler/tir/analysis/testing.h"
#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT

using testing::ParseModule;
using testing::kPrimFuncHeader;

TEST(ScalableVectorsTest, FixedVectorsPass) {
  IRModule m = ParseModule(std::string(kPrimFuncHeader) +
                           "def f(A: T.Buffer((8,), \"float32\")):\n"
                           "    A[0:4] = A[4:8] + T.Broadcast(T.float32(1), 4)\n");
  EXPECT_TRUE(RejectScalableVectors(m, "the C backend").ok());
}

TEST(ScalableVectorsTest, NamesTheSliceAndItsLine) {
  IRModule m = ParseModule(std::string(kPrimFuncHeader) +
                           "def f(A: T.Buffer((128,), \"float32\")):\n"
                           "    T.evaluate(0)\n"
                           "    A[0:T.vscale() * 4] = A[0:T.vscale() * 4]\n");
  absl::Status st = RejectScalableVectors(m, "the C backend");
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(st.message().find("the C backend does not support scalable vectors"), std::string::npos) << st;
  EXPECT_NE(st.message().find("float32xvscalex4"), std::string::npos) << st;
  EXPECT_NE(st.message().find("function 'f'"), std::string::npos) << st;
  EXPECT_NE(st.message().find("k.py:6:"), std::string::npos) << st;
}

TEST(ScalableVectorsTest, FindsABareVScaleCall) {
  IRModule m = ParseModule(std::string(kPrimFuncHeader) +
                           "def f(A: T.Buffer((128,), \"int32\")):\n"
                           "    A[0] = T.vscale()\n");
  absl::Status st = RejectScalableVectors(m, "the interpreter");
  EXPECT_NE(st.message().find("T.vscale()"), std::string::npos) << st;
}

TEST(ScalableVectorsTest, FindsAScalableBroadcast) {
  IRModule m = ParseModule(std::string(kPrimFuncHeader) +
                           "def f(A: T.Buffer((128,), \"float32\")):\n"
                           "    A[T.Ramp(0, 1, 4 * T.vscale())] = T.Broadcast(T.float32(1), 4 * T.vscale())\n");
  absl::Status st = RejectScalableVectors(m, "the LLVM backend");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("vscale() * 4"), std::string::npos) << st;
}

}  // namespace
}  // namespace kiln::tir
