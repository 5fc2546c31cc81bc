// Tensor: allocation (alignment, zero fill, size checks), strided views with offsets and their
// bounds, compaction and strided copies (values checked against index arithmetic done here),
// DLPack export/import ownership (deleters counted), and the dtype helpers.
#include "runtime/tensor.h"

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace kiln::runtime {
namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDataType kI64 = {kDLInt, 64, 1};

// A 2-D float tensor holding value r * 100 + c at (r, c).
Tensor Iota2D(int64_t rows, int64_t cols) {
  Tensor t = *Tensor::Empty({rows, cols}, kF32);
  float* p = static_cast<float*>(t.data());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) p[r * cols + c] = static_cast<float>(r * 100 + c);
  return t;
}

float At(const Tensor& t, int64_t r, int64_t c) {
  return static_cast<const float*>(t.data())[r * t.strides()[0] + c * t.strides()[1]];
}

TEST(DTypeTest, StringRoundTrip) {
  for (const char* s : {"float32", "float16", "float64", "int8", "int64", "uint8", "uint64", "bool", "float32x4", "bfloat16"}) {
    absl::StatusOr<DLDataType> t = ParseDType(s);
    ASSERT_TRUE(t.ok()) << s << ": " << t.status();
    EXPECT_EQ(DTypeString(*t), s);
  }
  EXPECT_EQ(ParseDType("bool")->code, kDLBoolCode);
  EXPECT_EQ(DTypeBytes(*ParseDType("bool")), 1);
  EXPECT_EQ(DTypeBytes(*ParseDType("float16")), 2);
  EXPECT_EQ(DTypeBytes(*ParseDType("int32x4")), 16);
  EXPECT_EQ(DTypeString(DLDataType{kDLUInt, 1, 1}), "bool");  // TVM's bool
  for (const char* bad : {"", "float", "int0", "int65", "complex64", "float32x0", "x4"}) {
    EXPECT_FALSE(ParseDType(bad).ok()) << bad;
  }
}

TEST(TensorTest, EmptyIsAlignedCompactAndZeroed) {
  absl::StatusOr<Tensor> t = Tensor::Empty({3, 5, 7}, kF32);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ndim(), 3);
  EXPECT_EQ(t->shape(), (std::vector<int64_t>{3, 5, 7}));
  EXPECT_EQ(t->strides(), (std::vector<int64_t>{35, 7, 1}));
  EXPECT_EQ(t->numel(), 105);
  EXPECT_EQ(t->nbytes(), 420);
  EXPECT_TRUE(t->IsCompact());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data()) % 64, 0u);
  EXPECT_EQ(t->dl()->data, t->data());
  EXPECT_EQ(t->dl()->ndim, 3);
  EXPECT_EQ(t->dl()->shape[2], 7);
  EXPECT_EQ(t->dl()->strides[0], 35);
  EXPECT_EQ(t->device().device_type, kDLCPU);
  const float* p = static_cast<const float*>(t->data());
  for (int i = 0; i < 105; ++i) ASSERT_EQ(p[i], 0.0f);
}

TEST(TensorTest, ScalarAndEmptyShapes) {
  Tensor s = *Tensor::Empty({}, kI64);
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.nbytes(), 8);
  EXPECT_NE(s.data(), nullptr);
  Tensor e = *Tensor::Empty({4, 0}, kF32);
  EXPECT_EQ(e.numel(), 0);
  EXPECT_NE(e.data(), nullptr);
  EXPECT_TRUE(e.IsCompact());
}

TEST(TensorTest, EmptyRejectsBadShapes) {
  EXPECT_EQ(Tensor::Empty({2, -1}, kF32).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Empty({int64_t{1} << 40, int64_t{1} << 40}, kF32).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(Tensor::Empty({2}, kF32, {kDLMetal, 0}).ok());  // no Metal runtime in kiln
}

TEST(TensorTest, StridedViewWithOffset) {
  Tensor base = Iota2D(16, 32);
  // Columns 3..18 of every row: row stride 32, offset 3 elements.
  absl::StatusOr<Tensor> v = base.View({16, 16}, {32, 1}, 3);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->IsCompact());
  EXPECT_EQ(v->dl()->data, base.dl()->data);  // DLPack view: same data pointer, offset in bytes
  EXPECT_EQ(v->byte_offset(), 12);
  EXPECT_EQ(v->dl()->strides[0], 32);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(At(*v, r, c), r * 100 + c + 3) << r << "," << c;
  // Writes through the view reach the base.
  static_cast<float*>(v->data())[0] = -1.0f;
  EXPECT_EQ(At(base, 0, 3), -1.0f);
}

TEST(TensorTest, ViewBoundsAreChecked) {
  Tensor base = Iota2D(16, 32);
  EXPECT_TRUE(base.View({16, 16}, {32, 1}, 16).ok());                  // last element is 511
  EXPECT_EQ(base.View({16, 16}, {32, 1}, 17).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(base.View({16, 16}, {32, 1}, -1).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(base.View({17, 32}, {}).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(base.View({2, 2}, {1}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(base.View({int64_t{1} << 62}, {int64_t{1} << 62}).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(base.View({0, 5}, {1000, 1000}).ok());  // reaches nothing
}

TEST(TensorTest, ContiguousCopiesStridedViews) {
  Tensor base = Iota2D(4, 6);
  // The transpose, as a view: shape (6, 4), strides (1, 6).
  Tensor t = *base.View({6, 4}, {1, 6});
  absl::StatusOr<Tensor> c = t.Contiguous();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->IsCompact());
  EXPECT_EQ(c->byte_offset(), 0);
  const float* p = static_cast<const float*>(c->data());
  for (int r = 0; r < 6; ++r)
    for (int col = 0; col < 4; ++col) ASSERT_EQ(p[r * 4 + col], col * 100 + r);
  // A compact tensor is returned as is (same data).
  EXPECT_EQ(base.Contiguous()->data(), base.data());
  // Negative strides: row 3 down to row 0.
  Tensor rev = *base.View({4, 6}, {-6, 1}, 18);
  Tensor rc = *rev.Contiguous();
  for (int r = 0; r < 4; ++r) ASSERT_EQ(static_cast<const float*>(rc.data())[r * 6 + 2], (3 - r) * 100 + 2);
}

TEST(TensorTest, CopyFromChecksShapeAndDtype) {
  Tensor a = *Tensor::Empty({2, 3}, kF32);
  EXPECT_EQ(a.CopyFrom(*Tensor::Empty({3, 2}, kF32)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(a.CopyFrom(*Tensor::Empty({2, 3}, kI64)).code(), absl::StatusCode::kInvalidArgument);
  Tensor src = Iota2D(2, 3);
  ASSERT_TRUE(a.CopyFrom(src).ok());
  EXPECT_EQ(std::memcmp(a.data(), src.data(), 24), 0);
}

TEST(TensorTest, DLPackExportKeepsDataAlive) {
  DLManagedTensor* m = nullptr;
  {
    Tensor t = Iota2D(2, 3);
    m = t.ToDLPack();
  }  // the last Tensor handle is gone; the export still owns the data
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.shape[1], 3);
  EXPECT_EQ(static_cast<const float*>(m->dl_tensor.data)[4], 101.0f);
  m->deleter(m);
}

struct Imported {
  float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  int deletes = 0;
};

DLManagedTensor* MakeManaged(Imported* src, int32_t ndim = 2) {
  auto* m = new DLManagedTensor{};
  m->dl_tensor.data = src->data;
  m->dl_tensor.device = {kDLCPU, 0};
  m->dl_tensor.ndim = ndim;
  m->dl_tensor.dtype = kF32;
  m->dl_tensor.shape = src->shape;
  m->dl_tensor.strides = nullptr;  // compact, DLPack 0.x style
  m->manager_ctx = src;
  m->deleter = [](DLManagedTensor* self) {
    ++static_cast<Imported*>(self->manager_ctx)->deletes;
    delete self;
  };
  return m;
}

TEST(TensorTest, DLPackImportOwnsAndReleasesOnce) {
  Imported src;
  {
    absl::StatusOr<Tensor> t = Tensor::FromDLPack(MakeManaged(&src));
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->strides(), (std::vector<int64_t>{3, 1}));  // materialized from NULL
    EXPECT_EQ(t->data(), src.data);
    Tensor copy = *t;
    Tensor view = *t->View({2}, {3}, 1);  // column 1
    EXPECT_EQ(static_cast<const float*>(view.data())[3], 5.0f);
    DLManagedTensor* again = view.ToDLPack();
    EXPECT_EQ(src.deletes, 0);
    again->deleter(again);
    EXPECT_EQ(src.deletes, 0);
  }
  EXPECT_EQ(src.deletes, 1);
}

TEST(TensorTest, MalformedDLPackIsRejectedAndReleased) {
  Imported src;
  EXPECT_FALSE(Tensor::FromDLPack(MakeManaged(&src, -1)).ok());
  EXPECT_EQ(src.deletes, 1);
  src.shape[0] = -2;
  EXPECT_FALSE(Tensor::FromDLPack(MakeManaged(&src)).ok());
  EXPECT_EQ(src.deletes, 2);
  EXPECT_FALSE(Tensor::FromDLPack(nullptr).ok());
}

}  // namespace
}  // namespace kiln::runtime
