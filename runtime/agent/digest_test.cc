#include "runtime/agent/digest.h"

#include <string>

#include "gtest/gtest.h"

namespace kiln::agent {
namespace {

TEST(DigestTest, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(DigestTest, IncrementalEqualsOneShot) {
  std::string data(100000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  Sha256Hasher h;
  for (size_t i = 0; i < data.size(); i += 4096) h.Update(absl::string_view(data).substr(i, 4096));
  EXPECT_EQ(h.FinishHex(), Sha256Hex(data));
}

TEST(DigestTest, SyntaxAcceptsOnlyLowerHex64) {
  EXPECT_TRUE(CheckDigestSyntax(Sha256Hex("x")).ok());
  EXPECT_FALSE(CheckDigestSyntax("").ok());
  EXPECT_FALSE(CheckDigestSyntax(std::string(63, 'a')).ok());
  EXPECT_FALSE(CheckDigestSyntax(std::string(64, 'A')).ok());
  EXPECT_FALSE(CheckDigestSyntax("../../etc/passwd" + std::string(48, 'a')).ok());
}

}  // namespace
}  // namespace kiln::agent
