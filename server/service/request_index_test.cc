#include "server/service/request_index.h"

#include "gtest/gtest.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

v1::CompileRequest Request() {
  v1::CompileRequest r;
  r.set_source("@R.function ...");
  r.set_filename("m.py");
  r.set_target("llvm");
  (*r.mutable_extra_vars())["M"] = "128";
  (*r.mutable_extra_vars())["N"] = "64";
  r.add_entries("main");
  return r;
}

TEST(RequestIndexTest, DigestCoversWhatChangesTheAnswerOnly) {
  CacheKey base = RequestIndex::Digest(Request());
  v1::CompileRequest same = Request();
  same.set_max_inline_bytes(10);  // changes the reply's shape, not the executable
  EXPECT_EQ(RequestIndex::Digest(same), base);
  // Map insertion order does not matter.
  v1::CompileRequest reordered = Request();
  reordered.clear_extra_vars();
  (*reordered.mutable_extra_vars())["N"] = "64";
  (*reordered.mutable_extra_vars())["M"] = "128";
  EXPECT_EQ(RequestIndex::Digest(reordered), base);
  std::vector<v1::CompileRequest> different(5, Request());
  different[0].set_source("@R.function ... ");
  different[1].set_filename("n.py");  // diagnostics name the file
  different[2].set_target("c");
  (*different[3].mutable_extra_vars())["M"] = "256";
  different[4].set_ir("@R.function ...");  // the same bytes as IR, not as source
  for (const v1::CompileRequest& r : different) EXPECT_NE(RequestIndex::Digest(r), base) << r.DebugString();
}

TEST(RequestIndexTest, FindsWhatWasInsertedAndDropsTheOldestPastCapacity) {
  RequestIndex index(2);
  auto key = [](int i) { return *CacheKey::FromDigest(Sha256Digest(std::to_string(i))); };
  for (int i = 0; i < 3; ++i) index.Insert(key(i), {key(100 + i), {}});
  EXPECT_EQ(index.size(), 2u);
  EXPECT_FALSE(index.Find(key(0)).has_value());
  ASSERT_TRUE(index.Find(key(2)).has_value());
  EXPECT_EQ(index.Find(key(2))->key, key(102));
  index.Insert(key(2), {key(7), {}});  // a replacement keeps its place
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.Find(key(2))->key, key(7));
}

}  // namespace
}  // namespace kiln::server
