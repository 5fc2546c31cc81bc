// VerifyBuildable on IR built by hand, as a deserialized module may hold it: nodes the parser
// never produces (a constant INT_MIN / -1 left unfolded, a division by the constant 0, a Ramp
// whose lanes wrap the 16-bit dtype field) and module-level symbol rules.
#include "compiler/script/verify.h"

#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "compiler/ir/ir.h"

namespace kiln::script {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

// The first error message for a module holding `body` as function "main" (with `attrs`).
std::string FirstError(const Stmt& body, Map<String, ObjectRef> attrs = {}) {
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("main"), PrimFunc({}, body, Type(), {}, attrs));
  DiagnosticList diags;
  absl::Status st = VerifyBuildable(mod, &diags);
  if (st.ok() || diags.items().empty()) return "";
  return diags.items()[0].message;
}

Stmt Store(const PrimExpr& value) {
  Buffer b = Buffer::Make("A", {I32(8)}, value.dtype().element_of());
  return AllocBuffer(b, BufferStore(b, value, {I32(0)}));
}

TEST(VerifyBuildableTest, ConstantDivisionsThatTrap) {
  EXPECT_EQ(FirstError(Store(FloorDiv(I32(std::numeric_limits<int32_t>::min()), I32(-1)))),
            "integer overflow: -2147483648 // -1 does not fit in int32 (the division traps at run time)");
  Var x("x", DataType::Int(32));
  EXPECT_EQ(FirstError(LetStmt(x, I32(3), Store(Div(x, I32(0))))), "division by zero (/ by the constant 0)");
  EXPECT_EQ(FirstError(LetStmt(x, I32(3), Store(FloorMod(x, I32(-1))))), "");
}

TEST(VerifyBuildableTest, VectorLanes) {
  EXPECT_EQ(FirstError(Store(Ramp(I32(0), I32(1), 65536))),
            "a vector of 65536 lanes is wider than kiln's limit of 256 lanes");
  EXPECT_EQ(FirstError(Store(Ramp(I32(0), I32(1), kMaxVectorLanes))), "");
  // A scalable vector (T.vscale() * 4 lanes, encoded -4) has no width to check here.
  EXPECT_EQ(FirstError(Store(Ramp(I32(0), I32(1), -4))), "");
  // A vector index into a vector buffer multiplies the lanes: 128 * 256 would wrap the lane field.
  Buffer v = Buffer::Make("V", {I32(8)}, DataType::Float(32, 128));
  EXPECT_EQ(FirstError(AllocBuffer(v, Evaluate(BufferLoad(v, {Ramp(I32(0), I32(1), 256)})))),
            "a vector of 32768 lanes is wider than kiln's limit of 256 lanes");
}

TEST(VerifyBuildableTest, ShiftAmounts) {
  Var x("x", DataType::Int(64));
  auto shift = [&](int64_t by) {
    return LetStmt(x, IntImm(DataType::Int(64), 1),
                   Store(Call(DataType::Int(64), Op("tirx.shift_left"), {x, IntImm(DataType::Int(64), by)})));
  };
  EXPECT_EQ(FirstError(shift(63)), "");
  EXPECT_EQ(FirstError(shift(64)), "shift by 64 is out of range for int64 (0 to 63); the result is undefined");
}

TEST(VerifyBuildableTest, GlobalSymbols) {
  Stmt body = Evaluate(I32(0));
  EXPECT_EQ(FirstError(body, {{String("global_symbol"), String("ok_name1")}}), "");
  EXPECT_EQ(FirstError(body, {{String("global_symbol"), String("0main[")}}), "");
  EXPECT_NE(FirstError(body, {{String("global_symbol"), String("")}}).find("is empty"), std::string::npos);
  EXPECT_NE(FirstError(body, {{String("global_symbol"), String("x y")}}).find("not a valid symbol name"),
            std::string::npos);
  // Which symbols a module exports together is the build's check (driver/kernel_symbols.h):
  // a public function exporting a private function's name, or a libm name, verifies.
  EXPECT_EQ(FirstError(body, {{String("global_symbol"), String("exp")}}), "");
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("helper"), PrimFunc({}, body));
  mod.Add(GlobalVar("main"), PrimFunc({}, body, Type(), {}, {{String("global_symbol"), String("helper")}}));
  DiagnosticList diags;
  EXPECT_TRUE(VerifyBuildable(mod, &diags).ok());
  EXPECT_TRUE(diags.items().empty());
}

}  // namespace
}  // namespace kiln::script
