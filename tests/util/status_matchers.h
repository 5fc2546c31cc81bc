// IsError: the check a negative test makes, so that a rejection for the wrong reason fails it.
//   EXPECT_TRUE(IsError(b.EndPrimFunc(), absl::StatusCode::kInternal, "without a matching"));
//   EXPECT_TRUE(IsInvalidArgument(Infer("reshape", {...}), "cannot reshape"));
// passes when the status is an error with that code whose message contains the fragment; otherwise
// the failure shows the status it got.
#ifndef KILN_TESTS_UTIL_STATUS_MATCHERS_H_
#define KILN_TESTS_UTIL_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace kiln::testing {

inline ::testing::AssertionResult IsError(const absl::Status& status, absl::StatusCode code,
                                          absl::string_view fragment) {
  if (status.ok()) return ::testing::AssertionFailure() << "succeeded, expected an error containing \"" << fragment << "\"";
  if (status.code() != code || status.message().find(fragment) == absl::string_view::npos) {
    return ::testing::AssertionFailure() << "got " << status << "\n  expected " << absl::StatusCodeToString(code)
                                         << " containing \"" << fragment << "\"";
  }
  return ::testing::AssertionSuccess();
}

template <typename T>
::testing::AssertionResult IsError(const absl::StatusOr<T>& result, absl::StatusCode code,
                                   absl::string_view fragment) {
  return IsError(result.status(), code, fragment);
}

// The usual case: bad input rejected with INVALID_ARGUMENT.
template <typename S>
::testing::AssertionResult IsInvalidArgument(const S& status, absl::string_view fragment) {
  return IsError(status, absl::StatusCode::kInvalidArgument, fragment);
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_UTIL_STATUS_MATCHERS_H_
