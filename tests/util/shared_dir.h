// Locates the `shared/` directory (specs, notes, conformance corpus) that sits next to the kiln
// checkout (`/work/shared` beside `/work/main`, or `../shared` beside a CI clone). Tests use it
// to read the corpus, which lives outside the repository and so cannot be a Bazel data dep.
#ifndef KILN_TESTS_UTIL_SHARED_DIR_H_
#define KILN_TESTS_UTIL_SHARED_DIR_H_

#include <string>

#include "absl/status/statusor.h"

namespace kiln::testing {

// Absolute path of `shared/` (without trailing slash). Looks at, in order: $KILN_SHARED_DIR;
// the ancestors of the real checkout found through the `//:WORKSPACE` runfile (add
// `data = ["//:WORKSPACE"]` to the test); $BUILD_WORKSPACE_DIRECTORY; the current directory;
// the real path of the running binary. A candidate counts when it has a `corpus/` subdirectory.
// NOT_FOUND names every place tried.
absl::StatusOr<std::string> SharedDir();

}  // namespace kiln::testing

#endif  // KILN_TESTS_UTIL_SHARED_DIR_H_
