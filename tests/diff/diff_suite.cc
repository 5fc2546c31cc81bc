// The shared differential test bodies (see diff_suite.h).
#include "tests/diff/diff_suite.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "tests/diff/program_gen.h"

namespace kiln::difftest {

DiffOptions OptionsFromEnv(const Oracle& interpreter) {
  DiffOptions o;
  o.interpreter = interpreter;
  int n;
  uint64_t seed;
  if (const char* v = std::getenv("KILN_DIFF_PROGRAMS"); v && absl::SimpleAtoi(v, &n) && n > 0) o.num_programs = n;
  if (const char* v = std::getenv("KILN_DIFF_SEED"); v && absl::SimpleAtoi(v, &seed)) o.first_seed = seed;
  return o;
}

void ExpectBackendsAgree(const DiffOptions& options) {
  auto start = std::chrono::steady_clock::now();
  DiffResult r = RunDifferential(options);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "differential: seeds [" << options.first_seed << ", " << options.first_seed + options.num_programs
            << "), " << r.programs << " programs, " << r.compared << " agreed on "
            << (options.interpreter ? "interp, llvm, c" : "llvm, c") << ", " << r.failures.size() << " failed, "
            << secs << " s\n";
  EXPECT_EQ(r.programs, options.num_programs);
  for (const std::string& f : r.failures) ADD_FAILURE() << f;
}

void ExpectProgramsRoundTrip(uint64_t first_seed, int count) {
  for (uint64_t seed = first_seed; seed < first_seed + count; ++seed) {
    Program p = GenerateProgram(seed);
    EXPECT_TRUE(ir::StructuralEqual(p.func, GenerateProgram(seed).func)) << "seed " << seed << " is not deterministic";
    std::string text = ProgramScript(seed);
    absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(text, p.name + ".py");
    if (!parsed.ok()) {
      ADD_FAILURE() << "seed " << seed << ": the printed program does not parse:\n" << parsed.status().message() << "\n" << text;
      continue;
    }
    // Printing reaches a fixed point after one round (the parser may fold constants, as in
    // `not T.bool(True)`, so the first reprint may differ from the generator's text).
    std::string once = script::printer::Print(*parsed);
    absl::StatusOr<ir::ObjectRef> reparsed = script::ParseScript(once, p.name + ".py");
    ASSERT_TRUE(reparsed.ok()) << "seed " << seed << ": " << reparsed.status().message() << "\n" << once;
    EXPECT_EQ(script::printer::Print(*reparsed), once) << "seed " << seed;
  }
}

void ExpectBrokenLegIsCaught() {
  DiffOptions o;
  o.first_seed = 1000;
  o.num_programs = 6;
  // "Runs" the program without writing anything: the outputs keep their initial contents.
  o.interpreter = [](const ir::IRModule&, const std::string&, const KilnAny*, int32_t, KilnAny*) {
    return absl::OkStatus();
  };
  DiffResult r = RunDifferential(o);
  EXPECT_EQ(r.programs, 6);
  EXPECT_GE(r.failures.size(), 5u) << "a leg that computes nothing went unnoticed";
  for (const std::string& f : r.failures) {
    EXPECT_NE(f.find("interp vs llvm"), std::string::npos) << f;
    EXPECT_NE(f.find("KILN_DIFF_SEED="), std::string::npos) << f;
    EXPECT_NE(f.find("@T.prim_func"), std::string::npos) << f;
  }
}

}  // namespace kiln::difftest
