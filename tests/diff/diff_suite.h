// The differential test bodies, shared by diff_test (LLVM vs C) and diff_interp_test (LLVM vs C vs
// the reference interpreter): each test binary supplies its legs and calls these from its TESTs.
#ifndef KILN_TESTS_DIFF_DIFF_SUITE_H_
#define KILN_TESTS_DIFF_DIFF_SUITE_H_

#include "tests/diff/diff_runner.h"

namespace kiln::difftest {

// The default run, overridden by KILN_DIFF_PROGRAMS (count) and KILN_DIFF_SEED (first seed).
DiffOptions OptionsFromEnv(const Oracle& interpreter);

// Runs the programs and adds one test failure per disagreeing program (its report says how to
// reproduce it).
void ExpectBackendsAgree(const DiffOptions& options);

// Generated programs are valid TIR: their printed TVMScript parses back (the parser runs the TIR
// verifier), printing is a fixed point after one round, and the same seed gives the same program.
void ExpectProgramsRoundTrip(uint64_t first_seed, int count);

// The comparison can fail: a leg that returns without computing anything must be reported.
void ExpectBrokenLegIsCaught();

}  // namespace kiln::difftest

#endif  // KILN_TESTS_DIFF_DIFF_SUITE_H_
