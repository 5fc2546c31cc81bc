#include "compiler/ir/serialize.h"

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "compiler/ir/testing/samples.h"
#include "compiler/ir/type_registry.h"
#include "gtest/gtest.h"
#include "proto/ir.pb.h"

namespace kiln::ir {
namespace {

using testing::MakeModule;
using testing::MakeSample;

std::string Wrap(const kiln::v1::IRGraph& g) {
  return std::string("KILNIR\0\x01", 8) + g.SerializeAsString();
}

kiln::v1::IRGraph Parse(const std::string& bytes) {
  kiln::v1::IRGraph g;
  EXPECT_TRUE(g.ParseFromString(bytes.substr(8)));
  return g;
}

void ExpectRejected(const std::string& bytes, const std::string& needle) {
  absl::StatusOr<ObjectRef> r = Deserialize(bytes);
  ASSERT_FALSE(r.ok()) << "accepted malformed input (wanted: " << needle << ")";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status();
}

TEST(SerializeTest, EveryNodeKindRoundTrips) {
  for (const auto& e : TypeRegistry::Global().entries()) {
    ObjectRef x = MakeSample(e.kind);
    absl::StatusOr<std::string> bytes = Serialize(x);
    ASSERT_TRUE(bytes.ok()) << e.type_key << ": " << bytes.status();
    absl::StatusOr<ObjectRef> y = Deserialize(*bytes);
    ASSERT_TRUE(y.ok()) << e.type_key << ": " << y.status();
    std::string why;
    EXPECT_TRUE(StructuralEqual(x, *y, /*map_free_vars=*/true, &why)) << e.type_key << ": " << why;
    EXPECT_EQ(*Serialize(*y), *bytes) << e.type_key << ": re-serialization differs";
    absl::StatusOr<std::string> json = SerializeToJson(x);
    ASSERT_TRUE(json.ok()) << json.status();
    absl::StatusOr<ObjectRef> z = DeserializeFromJson(*json);
    ASSERT_TRUE(z.ok()) << e.type_key << ": " << z.status();
    EXPECT_TRUE(StructuralEqual(x, *z, true)) << e.type_key;
  }
}

TEST(SerializeTest, ModuleRoundTripKeepsIdentityAndSpans) {
  IRModule m = MakeModule();
  absl::StatusOr<std::string> bytes = Serialize(m);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<ObjectRef> back = Deserialize(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  std::string why;
  EXPECT_TRUE(StructuralEqual(m, *back, false, &why)) << why;

  Var x("x", DataType::Int(32), Span{std::make_shared<std::string>("f.py"), 3, 5, 3, 6});
  PrimExpr e = Add(x, x);
  absl::StatusOr<ObjectRef> e2 = Deserialize(*Serialize(e));
  ASSERT_TRUE(e2.ok());
  const auto* add = e2->as<AddNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->a.same_as(add->b)) << "a shared Var must stay one object";
  EXPECT_EQ(add->a.as<VarNode>()->span.ToString(), "f.py:3:5");
}

TEST(SerializeTest, JsonIsReadable) {
  absl::StatusOr<std::string> json = SerializeToJson(Add(Var("x", DataType::Int(32)), IntImm(DataType::Int(32), 1)));
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"type\": \"tirx.Add\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"dtype\": \"int32\""), std::string::npos) << *json;
  EXPECT_FALSE(DeserializeFromJson("{not json").ok());
}

TEST(SerializeTest, RejectsBadHeaders) {
  ExpectRejected("", "bad magic");
  ExpectRejected("GARBAGE!", "bad magic");
  ExpectRejected(std::string("KILNIR\0\x07", 8), "version");
  std::string good = *Serialize(MakeModule());
  ExpectRejected(good.substr(0, good.size() / 2), "");
  // No prefix may crash the reader.
  for (size_t n = 0; n < good.size(); n += 7) (void)Deserialize(good.substr(0, n));
}

TEST(SerializeTest, RejectsMalformedGraphs) {
  kiln::v1::IRGraph base = Parse(*Serialize(Add(Var("x", DataType::Int(32)), IntImm(DataType::Int(32), 1))));
  auto find = [&](kiln::v1::IRGraph& g, const std::string& type) -> kiln::v1::IRNode* {
    for (auto& n : *g.mutable_nodes()) {
      if (n.type() == type) return &n;
    }
    return nullptr;
  };
  auto field = [](kiln::v1::IRNode* n, const std::string& name) -> kiln::v1::IRField* {
    for (auto& f : *n->mutable_fields()) {
      if (f.name() == name) return &f;
    }
    return nullptr;
  };
  {
    kiln::v1::IRGraph g = base;
    g.set_format_version(9);
    ExpectRejected(Wrap(g), "format version 9");
  }
  {
    kiln::v1::IRGraph g = base;
    find(g, "tirx.Add")->set_type("tirx.Bogus");
    ExpectRejected(Wrap(g), "unknown node type");
  }
  {
    kiln::v1::IRGraph g = base;
    field(find(g, "tirx.Add"), "a")->set_name("zz");
    ExpectRejected(Wrap(g), "unknown field \"zz\"");
  }
  {
    kiln::v1::IRGraph g = base;
    find(g, "tirx.Add")->mutable_fields()->RemoveLast();
    ExpectRejected(Wrap(g), "missing field");
  }
  {
    kiln::v1::IRGraph g = base;
    field(find(g, "tirx.Add"), "a")->set_s("text");
    ExpectRejected(Wrap(g), "must be a reference");
  }
  {
    kiln::v1::IRGraph g = base;
    field(find(g, "tirx.Add"), "a")->set_ref(g.nodes_size() - 1);
    ExpectRejected(Wrap(g), "earlier node");
  }
  {
    kiln::v1::IRGraph g = base;
    field(find(g, "tirx.Add"), "a")->set_ref(-1);
    ExpectRejected(Wrap(g), "must not be null");
  }
  {
    kiln::v1::IRGraph g = base;
    field(find(g, "ir.IntImm"), "dtype")->set_dtype("float31");
    ExpectRejected(Wrap(g), "float31");
  }
  {
    kiln::v1::IRGraph g = base;
    g.set_root(1000);
    ExpectRejected(Wrap(g), "root index");
  }
}

TEST(SerializeTest, RejectsWrongNodeTypeInTypedField) {
  // An Evaluate statement where a PrimExpr is expected.
  kiln::v1::IRGraph g = Parse(*Serialize(relax::Tuple({relax::PrimValue(IntImm(DataType::Int(64), 1))})));
  kiln::v1::IRGraph stmt = Parse(*Serialize(Evaluate(IntImm(DataType::Int(32), 0))));
  // Splice: make the PrimValue's "value" point to an Evaluate node appended before it.
  kiln::v1::IRGraph bad = stmt;
  int64_t eval_index = bad.root();
  int64_t offset = bad.nodes_size();
  for (auto n : g.nodes()) {
    for (auto& f : *n.mutable_fields()) {
      if (f.value_case() == kiln::v1::IRField::kRef && f.ref() >= 0) f.set_ref(f.ref() + offset);
    }
    for (auto& it : *n.mutable_items()) it += offset;
    if (n.type() == "relax.PrimValue") {
      for (auto& f : *n.mutable_fields()) {
        if (f.name() == "value") f.set_ref(eval_index);
      }
    }
    *bad.add_nodes() = n;
  }
  bad.set_root(g.root() + offset);
  ExpectRejected(Wrap(bad), "cannot hold a tirx.Evaluate");
}

// Protobuf itself logs invalid UTF-8 in a string field; only kiln's own error may be seen.
TEST(SerializeTest, InvalidUtf8IsReportedWithoutProtobufLogLines) {
  kiln::v1::IRGraph g = Parse(*Serialize(MakeModule()));
  ASSERT_GT(g.nodes_size(), 0);
  g.mutable_nodes(0)->set_type("\xff\xfe not UTF-8");
  std::string bytes = std::string("KILNIR\0\x01", 8);
  g.AppendPartialToString(&bytes);  // a plain serialize would refuse the bad string itself
  ::testing::internal::CaptureStderr();
  absl::StatusOr<ObjectRef> r = Deserialize(bytes);
  std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(logged, "");
  EXPECT_NE(r.status().message().find("malformed serialized IR"), std::string::npos) << r.status();
}

TEST(SerializeTest, RejectsEnumOutOfRange) {
  kiln::v1::IRGraph g = Parse(*Serialize(MakeSample(NodeKind::kFor)));
  for (auto& n : *g.mutable_nodes()) {
    for (auto& f : *n.mutable_fields()) {
      if (n.type() == "tirx.For" && f.name() == "kind") f.set_i(99);
    }
  }
  ExpectRejected(Wrap(g), "out of range");
}

TEST(SerializeTest, RejectsDeepNestingAndDagBombs) {
  PrimExpr deep = LT(Var("x", DataType::Int(32)), IntImm(DataType::Int(32), 0));
  for (int i = 0; i < kMaxDepth + 10; ++i) deep = Not(deep);
  absl::StatusOr<std::string> bytes = Serialize(deep);
  ASSERT_TRUE(bytes.ok()) << "the writer is iterative";
  ExpectRejected(*bytes, "nesting deeper");

  PrimExpr bomb = Var("x", DataType::Int(32));
  for (int i = 0; i < 40; ++i) bomb = Add(bomb, bomb);
  ExpectRejected(*Serialize(bomb), "DAG bomb");
}

}  // namespace
}  // namespace kiln::ir
