// A small libFuzzer-compatible driver for toolchains without libFuzzer (GCC): it runs the target's
// seeds, then random inputs and mutations of the seeds, bounded by a count and a time limit, so a
// fuzz target can run as an ordinary test (under ASan+UBSan). With clang's -fsanitize=fuzzer the
// same target links against libFuzzer instead.
//
// Flags: --seconds=N (default 8), --runs=N (default 2,000,000), --seed=N, FILE... replays files.
#ifndef KILN_TESTS_FUZZ_FUZZ_DRIVER_H_
#define KILN_TESTS_FUZZ_FUZZ_DRIVER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Defined by each fuzz target: interesting well-formed inputs to start from.
std::vector<std::string> KilnFuzzSeeds();

#endif  // KILN_TESTS_FUZZ_FUZZ_DRIVER_H_
