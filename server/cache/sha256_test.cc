#include "server/cache/sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace kiln::server {
namespace {

// FIPS 180-2 test vectors.
TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(ToHex(Sha256Digest("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(ToHex(Sha256Digest("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(ToHex(Sha256Digest(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalEqualsOneShot) {
  Sha256 h;
  h.Update("ab");
  h.Update("");
  h.Update("c");
  EXPECT_EQ(h.Finish(), Sha256Digest("abc"));
}

TEST(Sha256Test, HexIsLowerCaseTwoDigitsPerByte) {
  EXPECT_EQ(ToHex(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
}

}  // namespace
}  // namespace kiln::server
