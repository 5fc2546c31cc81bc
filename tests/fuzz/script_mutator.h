// Token-level mutation of TVMScript programs, shared by the parser fuzzer (script_parse_fuzz.cc)
// and the build property test (build_property.cc). The mutator works on a light Python
// tokenization of the input, so most mutants stay lexically valid and get past the reader into
// the parser and the verifiers, where byte flips alone rarely reach.
#ifndef KILN_TESTS_FUZZ_SCRIPT_MUTATOR_H_
#define KILN_TESTS_FUZZ_SCRIPT_MUTATOR_H_

#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kiln::fuzz {

// A light Python tokenization, only for mutation: every byte belongs to exactly one token, so
// joining the tokens gives the input back.
std::vector<std::string> Tokenize(absl::string_view s);

// The programs mutants are made from, tokenized once.
struct MutationCorpus {
  explicit MutationCorpus(std::vector<std::string> seed_files);
  std::vector<std::string> files;
  std::vector<std::vector<std::string>> tokens;  // per file
  std::vector<std::string> pool;                 // every non-blank token of every file
};

// Token soup: a line structure with random indentation, each line a few tokens from the corpus
// pool or TVMScript's vocabulary, often behind a valid function header so the parser's statement
// handlers (not just the reader) see it.
std::string TokenSoup(const MutationCorpus& corpus, std::mt19937_64& rng);

// One to three token edits of `input`: deletions, duplications, swaps, splices and whole lines
// from other corpus files, renamings, interesting numbers, truncation (or, rarely, a token soup).
std::string TokenMutate(const MutationCorpus& corpus, absl::string_view input, std::mt19937_64& rng);

}  // namespace kiln::fuzz

#endif  // KILN_TESTS_FUZZ_SCRIPT_MUTATOR_H_
