#include "compiler/ir/structural.h"

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ir/testing/samples.h"
#include "compiler/ir/type_registry.h"
#include "gtest/gtest.h"

namespace kiln::ir {
namespace {

using testing::MakeModule;
using testing::MakeSample;

ObjectRef Clone(const ObjectRef& r) {
  ObjectPtr<Object> c = TypeRegistry::Global().Find(r->kind())->create();
  CopyFields(*r.get(), c.get());
  return ObjectRef(c);
}

// Every sample of every kind, for picking replacement values.
std::vector<ObjectRef> AllSamples() {
  std::vector<ObjectRef> out;
  for (const auto& e : TypeRegistry::Global().entries()) out.push_back(MakeSample(e.kind));
  return out;
}

// Changes one field of `node` (a fresh clone). Returns false if no different value could be found.
bool Mutate(const FieldInfo& f, const std::vector<ObjectRef>& pool) {
  switch (f.kind) {
    case FieldKind::kBool: *static_cast<bool*>(f.addr) = !*static_cast<bool*>(f.addr); return true;
    case FieldKind::kInt32: {
      int32_t& v = *static_cast<int32_t*>(f.addr);
      v = f.enum_max >= 0 ? (v + 1) % (f.enum_max + 1) : v + 1;
      return true;
    }
    case FieldKind::kInt64: *static_cast<int64_t*>(f.addr) += 1; return true;
    case FieldKind::kDouble: *static_cast<double*>(f.addr) += 0.5; return true;
    case FieldKind::kString: *static_cast<std::string*>(f.addr) += "x"; return true;
    case FieldKind::kDType: {
      DataType& t = *static_cast<DataType*>(f.addr);
      t = t == DataType::Int(8) ? DataType::Float(64) : DataType::Int(8);
      return true;
    }
    case FieldKind::kSpan: return false;
    case FieldKind::kRef: {
      ObjectRef& r = *static_cast<ObjectRef*>(f.addr);
      for (const ObjectRef& cand : pool) {
        if (!cand.defined() || !f.accepts(cand.get())) continue;
        if (r.defined() && StructuralEqual(r, cand, /*map_free_vars=*/true)) continue;
        r = cand;
        return true;
      }
      if (r.defined() && (f.flags & kFieldOptional)) {
        r = ObjectRef();
        return true;
      }
      return false;
    }
  }
  return false;
}

TEST(StructuralTest, EveryRegisteredKindHasASample) {
  for (const auto& e : TypeRegistry::Global().entries()) {
    ObjectRef s = MakeSample(e.kind);
    ASSERT_TRUE(s.defined()) << "no test sample for " << e.type_key;
    EXPECT_EQ(s->kind(), e.kind) << e.type_key;
  }
  EXPECT_EQ(TypeRegistry::Global().entries().size(), static_cast<size_t>(NodeKind::kNumKinds) - 1)
      << "every NodeKind except kInvalid must be registered";
}

// For each node type, each field that equality looks at: changing it makes the node unequal; and
// changing a value field changes the hash.
TEST(StructuralTest, EveryFieldChangeIsSeen) {
  std::vector<ObjectRef> pool = AllSamples();
  int checked = 0;
  for (const auto& e : TypeRegistry::Global().entries()) {
    ObjectRef orig = MakeSample(e.kind);
    if (orig.as<ArrayNode>() || orig.as<MapNode>() || orig.as<StringNode>()) continue;
    std::vector<FieldInfo> fields = ListFields(orig.get());
    for (size_t k = 0; k < fields.size(); ++k) {
      if (fields[k].flags & kFieldIgnoreEq) continue;
      ObjectRef copy = Clone(orig);
      ASSERT_TRUE(StructuralEqual(orig, copy, true)) << e.type_key;
      FieldInfo f = ListFields(copy.get())[k];
      if (!Mutate(f, pool)) continue;
      std::string why;
      EXPECT_FALSE(StructuralEqual(orig, copy, true, &why)) << e.type_key << "." << f.name << " change not seen";
      if (f.kind != FieldKind::kRef) {
        EXPECT_NE(StructuralHash(orig, true), StructuralHash(copy, true)) << e.type_key << "." << f.name;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

TEST(StructuralTest, IgnoredFieldsDoNotMatter) {
  Var a("a", DataType::Int(32)), b("b", DataType::Int(32));
  EXPECT_TRUE(StructuralEqual(a, b, /*map_free_vars=*/true)) << "var names are not compared";
  PrimExpr x = Add(a, IntImm(DataType::Int(32), 1));
  auto n = CloneNode(*x.as<AddNode>());
  n->span.line = 42;
  n->ty = PrimType(DataType::Int(32));
  EXPECT_TRUE(StructuralEqual(x, PrimExpr(ObjectPtr<Object>(std::move(n)))));
}

TEST(StructuralTest, AlphaEquivalentModulesAreEqualAndHashEqual) {
  IRModule m1 = MakeModule(""), m2 = MakeModule("_renamed");
  std::string why;
  EXPECT_TRUE(StructuralEqual(m1, m2, false, &why)) << why;
  EXPECT_EQ(StructuralHash(m1), StructuralHash(m2));
  EXPECT_TRUE(StructuralEqual(m1, m1));
}

TEST(StructuralTest, FreeVarsCompareByIdentity) {
  Var x("x", DataType::Int(32)), x2("x", DataType::Int(32)), y("y", DataType::Int(32));
  EXPECT_FALSE(StructuralEqual(Add(x, y), Add(x2, y)));
  EXPECT_TRUE(StructuralEqual(Add(x, y), Add(x2, y), /*map_free_vars=*/true));
  EXPECT_TRUE(StructuralEqual(Add(x, y), Add(x, y)));
}

TEST(StructuralTest, InconsistentBindingIsUnequal) {
  DataType i32 = DataType::Int(32);
  Var a("a", i32), b("b", i32), c("c", i32), d("d", i32);
  PrimFunc f1({a, b}, Evaluate(Add(a, a)));
  PrimFunc f2({c, d}, Evaluate(Add(c, d)));
  PrimFunc f3({c, d}, Evaluate(Add(c, c)));
  std::string why;
  EXPECT_FALSE(StructuralEqual(f1, f2, false, &why));
  EXPECT_NE(why.find("body"), std::string::npos) << why;
  EXPECT_TRUE(StructuralEqual(f1, f3));
  EXPECT_EQ(StructuralHash(f1), StructuralHash(f3));
  EXPECT_NE(StructuralHash(f1), StructuralHash(f2));
}

TEST(StructuralTest, LetBindsItsVar) {
  DataType i32 = DataType::Int(32);
  Var x("x", i32), z("z", i32);
  PrimExpr one = IntImm(i32, 1);
  EXPECT_TRUE(StructuralEqual(Let(x, one, Add(x, x)), Let(z, one, Add(z, z))));
  EXPECT_FALSE(StructuralEqual(Let(x, one, Add(x, x)), Let(z, one, Add(z, x))));
}

TEST(StructuralTest, MismatchPathNamesTheField) {
  IRModule m1 = MakeModule(), m2 = MakeModule();
  // Change one constant deep inside m2's PrimFunc.
  PrimFunc f = Downcast<PrimFunc>(m2.Lookup("matmul"));
  PrimFuncNode* fn = f.CopyOnWrite();
  fn->attrs.Set(String("tirx.noalias"), IntImm(DataType::Bool(), 0));
  m2.Add(m2.GetGlobalVar("matmul"), f);
  std::string why;
  EXPECT_FALSE(StructuralEqual(m1, m2, false, &why));
  EXPECT_NE(why.find("attrs"), std::string::npos) << why;
  EXPECT_NE(why.find("1 vs 0"), std::string::npos) << why;
}

// The hash is a cache key shared by processes and releases: pin it (it changes only when the IR
// does, e.g. when Buffer gained layout / no_layout / allocated_addr).
TEST(StructuralTest, HashIsStable) {
  EXPECT_EQ(StructuralHash(MakeModule()), StructuralHash(MakeModule("other")));
  EXPECT_EQ(StructuralHash(MakeModule()), 0x4da646be04212458ull) << "golden value changed: 0x" << std::hex << StructuralHash(MakeModule());
}

TEST(StructuralTest, DagSharingIsLinear) {
  // 200 levels of x = x + x: a tree of 2^200 nodes, a DAG of 200.
  PrimExpr e = Var("x", DataType::Int(32));
  for (int i = 0; i < 200; ++i) e = Add(e, e);
  PrimExpr f = Var("x", DataType::Int(32));
  for (int i = 0; i < 200; ++i) f = Add(f, f);
  EXPECT_TRUE(StructuralEqual(e, f, true));
  EXPECT_EQ(StructuralHash(e, true), StructuralHash(f, true));
}

}  // namespace
}  // namespace kiln::ir
