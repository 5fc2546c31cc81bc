#include "compiler/tir/analysis/device_kernel.h"

#include <string>

#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT

PrimFunc Parse(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "k.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? Downcast<PrimFunc>(*r) : PrimFunc();
}

constexpr char kKernel[] = R"(
from tvm.script import tirx as T

@T.prim_func
def f(a: T.handle, b: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (4,), "float32")
    B = T.match_buffer(b, (n,), "float16")
    C = T.match_buffer(c, (4, 2), "float32")
    A_bits = T.Buffer((4,), "int32", data=A.data)
    A[0] = T.float32(1)
    A_bits[1] = 2
    B[0] = B[1]
)";

Buffer ParamBuffer(const PrimFunc& f, int i) { return f->buffer_map.Get(f->params[i]); }

TEST(DeviceKernelTest, FirstTypeAndMixedAccesses) {
  PrimFunc f = Parse(kKernel);
  auto accesses = HandleAccesses(f->body);
  const auto& a = accesses.at(ParamBuffer(f, 0)->data.get());
  EXPECT_EQ(a.first, DataType::Float(32));
  EXPECT_TRUE(a.mixed);
  const auto& b = accesses.at(ParamBuffer(f, 1)->data.get());
  EXPECT_EQ(b.first, DataType::Float(16));
  EXPECT_FALSE(b.mixed);
  EXPECT_EQ(accesses.count(ParamBuffer(f, 2)->data.get()), 0u);  // C is never accessed
}

TEST(DeviceKernelTest, ConstantElementCount) {
  PrimFunc f = Parse(kKernel);
  EXPECT_EQ(ConstantElementCount(ParamBuffer(f, 2)), 8);
  EXPECT_EQ(ConstantElementCount(ParamBuffer(f, 1)), std::nullopt);
}

TEST(DeviceKernelTest, ParseThreadTag) {
  bool block = false;
  int dim = -1;
  EXPECT_TRUE(ParseThreadTag("blockIdx.y", &block, &dim));
  EXPECT_TRUE(block);
  EXPECT_EQ(dim, 1);
  EXPECT_TRUE(ParseThreadTag("threadIdx.z", &block, &dim));
  EXPECT_FALSE(block);
  EXPECT_EQ(dim, 2);
  for (const char* bad : {"vthread", "threadIdx.w", "blockIdx.xy", "threadIdx."}) {
    EXPECT_FALSE(ParseThreadTag(bad, &block, &dim)) << bad;
  }
}

}  // namespace
}  // namespace kiln::tir
