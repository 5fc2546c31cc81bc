// The T.* and R.* handler tables: every name belongs to one family, so that the order in which the
// families are added cannot change which handler a call reaches, and no handler name shadows the
// dtype constructors or a prefix family (CallT looks names up before prefixes and dtypes).
#include "compiler/script/parser/handlers.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace kiln::script::parser {
namespace {

std::map<std::string, int> TirNameCounts(std::vector<std::string>* prefixes) {
  std::map<std::string, int> count;
  for (auto add : {AddTirDTypeCalls, AddTirBufferCalls, AddTirLoopCalls, AddTirSBlockCalls, AddTirStmtCalls,
                   AddTirExprCalls, AddTirIntrinsicCalls, AddTirTileCalls,
                   AddTirTilePrimitiveCalls}) {
    TirCallTable t;
    add(&t);
    for (const auto& [name, handler] : t.by_name) ++count[name];
    for (const auto& [prefix, handler] : t.by_prefix) prefixes->push_back(prefix);
  }
  return count;
}

TEST(HandlerTablesTest, EachTirNameHasOneFamily) {
  std::vector<std::string> prefixes;
  std::map<std::string, int> count = TirNameCounts(&prefixes);
  EXPECT_GT(count.size(), 100u);
  for (const auto& [name, n] : count) EXPECT_EQ(n, 1) << "T." << name << " is added by " << n << " families";
  std::map<std::string, int> prefix_count;
  for (const std::string& p : prefixes) ++prefix_count[p];
  for (const auto& [prefix, n] : prefix_count) EXPECT_EQ(n, 1) << prefix;
}

TEST(HandlerTablesTest, TirNamesShadowNoDTypeAndNoPrefix) {
  std::vector<std::string> prefixes;
  for (const auto& [name, n] : TirNameCounts(&prefixes)) {
    ir::DataType unused;
    // T.handle is a handle variable, not a dtype constructor (as in TVM).
    if (name != "handle") {
      EXPECT_FALSE(ir::DataType::TryParse(name, &unused)) << "T." << name << " is a dtype";
    }
    for (const std::string& p : prefixes) EXPECT_FALSE(absl::StartsWith(name, p)) << "T." << name << " under " << p;
  }
}

TEST(HandlerTablesTest, EachRelaxNameHasOneFamily) {
  std::map<std::string, int> count;
  for (auto add : {AddRelaxTypeCalls, AddRelaxDistCalls, AddRelaxValueCalls, AddRelaxOpCalls}) {
    RelaxCallTable t;
    add(&t);
    for (const auto& [name, handler] : t) ++count[name];
  }
  EXPECT_GT(count.size(), 30u);
  for (const auto& [name, n] : count) EXPECT_EQ(n, 1) << "R." << name << " is added by " << n << " families";
}

}  // namespace
}  // namespace kiln::script::parser
