#include "runtime/vm/allocator.h"

#include "gtest/gtest.h"

namespace kiln::vm {
namespace {

constexpr DLDevice kCPU{kDLCPU, 0};

TEST(AllocatorTest, NaiveGoesToTheDeviceEveryTime) {
  std::unique_ptr<Allocator> a = *Allocator::Create(AllocatorKind::kNaive, kCPU);
  EXPECT_EQ(a->kind(), AllocatorKind::kNaive);
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::shared_ptr<const Storage>> s = a->Alloc(100, 64, "global");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>((*s)->data()) % 64, 0u);
    EXPECT_EQ((*s)->nbytes(), 100u);
  }
  EXPECT_EQ(a->stats().device_allocs, 3);
  EXPECT_EQ(a->stats().reused, 0);
}

TEST(AllocatorTest, PooledReusesReleasedBlocksOfTheSameRoundedSize) {
  std::unique_ptr<Allocator> a = *Allocator::Create(AllocatorKind::kPooled, kCPU);
  void* first;
  {
    std::shared_ptr<const Storage> s = *a->Alloc(1000, 64, "global");
    first = s->data();
  }
  EXPECT_EQ(a->stats().bytes_cached, 4096);
  std::shared_ptr<const Storage> again = *a->Alloc(3000, 64, "global");  // the same 4096-byte bucket
  EXPECT_EQ(again->data(), first);
  EXPECT_EQ(again->nbytes(), 3000u);
  std::shared_ptr<const Storage> other = *a->Alloc(5000, 64, "global");  // a new 8192-byte block
  EXPECT_NE(other->data(), first);
  AllocatorStats st = a->stats();
  EXPECT_EQ(st.device_allocs, 2);
  EXPECT_EQ(st.reused, 1);
  other.reset();
  EXPECT_EQ(a->stats().bytes_cached, 8192);
  a->Clear();
  EXPECT_EQ(a->stats().bytes_cached, 0);
  std::shared_ptr<const Storage> fresh = *a->Alloc(5000, 64, "global");
  EXPECT_EQ(a->stats().device_allocs, 3);
}

TEST(AllocatorTest, StorageOutlivesItsAllocator) {
  std::shared_ptr<const Storage> s;
  {
    std::unique_ptr<Allocator> a = *Allocator::Create(AllocatorKind::kPooled, kCPU);
    s = *a->Alloc(64, 64, "global");
  }
  static_cast<char*>(s->data())[63] = 1;  // still valid (ASan would flag a use after free)
  s.reset();
}

TEST(AllocatorTest, TensorsViewTheStorageAndKeepItAlive) {
  std::unique_ptr<Allocator> a = *Allocator::Create(AllocatorKind::kNaive, kCPU);
  std::shared_ptr<const Storage> s = *a->Alloc(64, 64, "global");
  absl::StatusOr<runtime::Tensor> t = s->AllocTensor(16, {2, 3}, DLDataType{kDLFloat, 32, 1});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data(), static_cast<char*>(s->data()) + 16);
  EXPECT_TRUE(t->IsCompact());
  void* data = s->data();
  s.reset();
  static_cast<float*>(t->data())[5] = 1.5f;
  EXPECT_EQ(static_cast<char*>(t->data()) - 16, data);
  // Does not fit: 24 bytes at offset 48 of 64.
  std::shared_ptr<const Storage> s2 = *a->Alloc(64, 64, "global");
  absl::StatusOr<runtime::Tensor> bad = s2->AllocTensor(48, {6}, DLDataType{kDLFloat, 32, 1});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(s2->AllocTensor(-8, {1}, DLDataType{kDLFloat, 32, 1}).ok());
  EXPECT_FALSE(s2->AllocTensor(0, {-1}, DLDataType{kDLFloat, 32, 1}).ok());
  EXPECT_FALSE(s2->AllocTensor(0, {int64_t{1} << 62, 8}, DLDataType{kDLFloat, 32, 1}).ok());
  // Empty, but its strides would overflow (found by the executable fuzz target).
  EXPECT_FALSE(s2->AllocTensor(0, {0, int64_t{1} << 40, int64_t{1} << 40}, DLDataType{kDLFloat, 32, 1}).ok());
}

TEST(AllocatorTest, UnsupportedDevice) {
  EXPECT_FALSE(Allocator::Create(AllocatorKind::kPooled, DLDevice{kDLMetal, 0}).ok());  // no Metal runtime
}

}  // namespace
}  // namespace kiln::vm
