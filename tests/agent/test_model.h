// The agent tests' executable: testdata/model.py built by the `kiln` CLI (a data dependency of the
// tests, not of the agent) the first time a test asks for it.
#ifndef KILN_TESTS_AGENT_TEST_MODEL_H_
#define KILN_TESTS_AGENT_TEST_MODEL_H_

#include <string>

#include "absl/status/statusor.h"

namespace kiln::agent {

// The bytes of model.kx (functions add, matmul, double, matmul256; see testdata/model.py).
absl::StatusOr<std::string> TestModelExecutable();

}  // namespace kiln::agent

#endif  // KILN_TESTS_AGENT_TEST_MODEL_H_
