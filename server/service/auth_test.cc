#include "server/service/auth.h"

#include <string>

#include "gtest/gtest.h"

namespace kiln::server {
namespace {

constexpr char kTokens[] =
    "# tokens of the test\n"
    "aaaaaaaaaaaaaaaaaaaa  alice  compile\n"
    "\n"
    "bbbbbbbbbbbbbbbbbbbb\tops\tadmin\n"
    "cccccccccccccccccccc dev-box agent\n";

TEST(TokenTableTest, EmptyTableAllowsEveryoneAsAnonymous) {
  TokenTable t;
  EXPECT_FALSE(t.enabled());
  absl::StatusOr<std::string> who = t.Authorize(nullptr, Permission::kAdmin);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(*who, "anonymous");
}

TEST(TokenTableTest, KnownTokensGetTheirNameAndPermissions) {
  absl::StatusOr<TokenTable> t = TokenTable::Parse(kTokens, "tokens");
  ASSERT_TRUE(t.ok()) << t.status();
  std::string alice = "Bearer aaaaaaaaaaaaaaaaaaaa", ops = "Bearer bbbbbbbbbbbbbbbbbbbb";
  EXPECT_EQ(*t->Authorize(&alice, Permission::kCompile), "alice");
  EXPECT_EQ(*t->Authorize(&ops, Permission::kCompile), "ops");  // admin implies compile
  EXPECT_EQ(*t->Authorize(&ops, Permission::kAdmin), "ops");
  absl::Status denied = t->Authorize(&alice, Permission::kAdmin).status();
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(denied.message().find("admin"), std::string::npos);
  std::string box = "Bearer cccccccccccccccccccc";
  EXPECT_EQ(*t->Authorize(&box, Permission::kAgent), "dev-box");
  EXPECT_EQ(t->Authorize(&box, Permission::kCompile).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(t->Authorize(&alice, Permission::kAgent).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(*t->Authorize(&ops, Permission::kAgent), "ops");
  EXPECT_EQ(*t->Authorize(&box, Permission::kFetch), "dev-box");  // agents fetch executables
  EXPECT_EQ(*t->Authorize(&alice, Permission::kFetch), "alice");
}

TEST(TokenTableTest, MissingMalformedAndUnknownTokensAreUnauthenticated) {
  absl::StatusOr<TokenTable> t = TokenTable::Parse(kTokens, "tokens");
  ASSERT_TRUE(t.ok());
  std::string no_scheme = "aaaaaaaaaaaaaaaaaaaa", unknown = "Bearer aaaaaaaaaaaaaaaaaaab", prefix = "Bearer aaaa";
  const std::string* values[] = {nullptr, &no_scheme, &unknown, &prefix};
  for (const std::string* v : values) {
    EXPECT_EQ(t->Authorize(v, Permission::kCompile).status().code(), absl::StatusCode::kUnauthenticated);
  }
}

TEST(TokenTableTest, MalformedFilesNameTheLine) {
  struct Case {
    const char* text;
    const char* fragment;
  } cases[] = {
      {"aaaaaaaaaaaaaaaaaaaa alice\n", "tokens:1: wrong number of fields"},
      {"# c\nshort alice compile\n", "tokens:2: token shorter than 16"},
      {"aaaaaaaaaaaaaaaaaaaa alice root\n", "unknown permission \"root\""},
      {"aaaaaaaaaaaaaaaaaaaa a compile\naaaaaaaaaaaaaaaaaaaa b compile\n", "tokens:2: token listed twice"},
  };
  for (const Case& c : cases) {
    absl::Status st = TokenTable::Parse(c.text, "tokens").status();
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(st.message().find(c.fragment), std::string::npos) << st.message();
  }
  EXPECT_EQ(TokenTable::Load("/nonexistent/tokens").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kiln::server
