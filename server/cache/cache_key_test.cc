#include "server/cache/cache_key.h"

#include <string>

#include "gtest/gtest.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

TEST(CacheKeyTest, HexRoundTrip) {
  absl::StatusOr<CacheKey> key = CacheKey::FromDigest(Sha256Digest("abc"));
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->Hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  absl::StatusOr<CacheKey> back = CacheKey::FromHex(key->Hex());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *key);
  absl::StatusOr<CacheKey> upper = CacheKey::FromHex("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, *key);
}

TEST(CacheKeyTest, MalformedInputIsInvalidArgument) {
  EXPECT_EQ(CacheKey::FromHex("zz").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CacheKey::FromHex(std::string(64, 'g')).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CacheKey::FromDigest("short").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::server
