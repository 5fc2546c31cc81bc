// The description of an executable in `kiln build`'s summary line, shared by the local and the
// remote build so that both print the same words for the same bytes.
#ifndef KILN_CLIENT_CLI_SUMMARY_H_
#define KILN_CLIENT_CLI_SUMMARY_H_

#include <string>

#include "runtime/vm/executable.h"

namespace kiln::cli {

// "1 VM function (main), 5 packed functions".
std::string ExecutableSummary(const vm::Executable& exec);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_SUMMARY_H_
