#include "compiler/driver/pass_instrument.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

using ir::IRModule;

// A pass that adds one function, so each step's output is a distinguishable module.
absl::StatusOr<IRModule> AddFunc(const IRModule& m, const std::string& name) {
  IRModule out = IRModule::Make();
  for (const auto& [gv, f] : m.Functions()) out.Add(gv, f);
  out.Add(ir::GlobalVar(name), ir::PrimFunc({}, ir::Evaluate(ir::IntImm(ir::DataType::Int(32), 0))));
  return out;
}

TEST(PassInstrumentTest, AfterPassSeesEachStepsOutput) {
  std::vector<std::string> seen;
  std::vector<size_t> sizes;
  PassHooks hooks;
  hooks.after_pass = [&](absl::string_view pass, const IRModule& m) {
    seen.emplace_back(pass);
    sizes.push_back(m.Functions().size());
  };
  IRModule m = IRModule::Make();
  for (const char* name : {"First", "Second"}) {
    absl::StatusOr<IRModule> next = RunPass(
        name, [&](const IRModule& in) { return AddFunc(in, name); }, m, hooks, nullptr);
    ASSERT_TRUE(next.ok()) << next.status();
    m = *next;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"First", "Second"}));
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 2}));
}

TEST(PassInstrumentTest, VerifyEachNamesThePassThatBrokeTheIR) {
  int verified = 0;
  ModuleVerifier verify = [&](const IRModule& m) {
    ++verified;
    return m.Functions().empty() ? absl::OkStatus() : absl::InvalidArgumentError("a function appeared");
  };
  ModulePass add = [](const IRModule& in) { return AddFunc(in, "f"); };
  PassHooks hooks;
  // Off: the verifier does not run.
  EXPECT_TRUE(RunPass("AddF", add, IRModule::Make(), hooks, verify).ok());
  EXPECT_EQ(verified, 0);
  hooks.verify_each = true;
  bool after_called = false;
  hooks.after_pass = [&](absl::string_view, const IRModule&) { after_called = true; };
  absl::StatusOr<IRModule> r = RunPass("AddF", add, IRModule::Make(), hooks, verify);
  EXPECT_EQ(verified, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(r.status().message(), "verifier failed after pass AddF: a function appeared");
  EXPECT_FALSE(after_called);
}

TEST(PassInstrumentTest, PassErrorIsReturnedUnchanged) {
  PassHooks hooks;
  hooks.verify_each = true;
  bool called = false;
  hooks.after_pass = [&](absl::string_view, const IRModule&) { called = true; };
  absl::StatusOr<IRModule> r = RunPass(
      "Fails", [](const IRModule&) -> absl::StatusOr<IRModule> { return absl::InvalidArgumentError("bad input"); },
      IRModule::Make(), hooks, [](const IRModule&) { return absl::OkStatus(); });
  EXPECT_EQ(r.status(), absl::InvalidArgumentError("bad input"));
  EXPECT_FALSE(called);
}

TEST(PassInstrumentTest, Selection) {
  std::vector<std::string> known = {"A", "B"};
  EXPECT_TRUE(CheckPassSelection({"all"}, known).ok());
  EXPECT_TRUE(CheckPassSelection({"B", "A"}, known).ok());
  absl::Status st = CheckPassSelection({"A", "C"}, known);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "unknown pass 'C' (passes: all, A, B)");
  EXPECT_TRUE(PassSelected({"all"}, "B"));
  EXPECT_TRUE(PassSelected({"A", "B"}, "B"));
  EXPECT_FALSE(PassSelected({"A"}, "B"));
  EXPECT_FALSE(PassSelected({}, "A"));
}

}  // namespace
}  // namespace kiln::driver
