// A small libFuzzer-compatible driver for toolchains without libFuzzer (GCC): it runs the target's
// seeds, then random inputs and mutations of the seeds, bounded by a count and a time limit, so a
// fuzz target can run as an ordinary test (under ASan+UBSan). With clang's -fsanitize=fuzzer the
// same target links against libFuzzer instead.
//
// Flags: --seconds=N (default 8; env KILN_FUZZ_SECONDS overrides), --runs=N (default 2,000,000),
// --seed=N, --timeout=S (one input running longer than S seconds is a failure, as libFuzzer's
// -timeout; default 10), FILE... replays files. An input that crashes, trips a sanitizer or times
// out is written to $TEST_UNDECLARED_OUTPUTS_DIR (else the current directory) as fuzz-failure.input.
#ifndef KILN_TESTS_FUZZ_FUZZ_DRIVER_H_
#define KILN_TESTS_FUZZ_FUZZ_DRIVER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Optional, as in libFuzzer: a structure-aware mutator (token-level edits, say) that rewrites
// data[0, size) in place into at most max_size bytes and returns the new size. When a target
// defines it, the driver uses it for about half of the mutations, next to its own byte-level ones.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed)
    __attribute__((weak));

// Defined by each fuzz target: interesting well-formed inputs to start from.
std::vector<std::string> KilnFuzzSeeds();

#endif  // KILN_TESTS_FUZZ_FUZZ_DRIVER_H_
