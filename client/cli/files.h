// The CLI's file handling around a command's work: the output directory, validated (and created)
// before a kernel runs so a long run never ends in "cannot write"; and replacing a user's file
// atomically, so an interrupted or failed `fmt -i` never leaves it truncated.
#ifndef KILN_CLIENT_CLI_FILES_H_
#define KILN_CLIENT_CLI_FILES_H_

#include <string>

#include "absl/status/status.h"

namespace kiln::cli {

// Makes `dir` (and any missing parents) a directory kiln can write into. FAILED_PRECONDITION with
// the reason ("is not a directory", "cannot create ...: <strerror>", "is not writable") otherwise.
absl::Status PrepareOutputDir(const std::string& dir);

// Replaces `path` with `data`: written to a temporary file next to it (same directory, so the
// rename stays on one file system), flushed, given `path`'s permission bits, then renamed over
// it. On any failure `path` is untouched and the temporary file removed.
absl::Status ReplaceFileAtomically(const std::string& path, const std::string& data);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_FILES_H_
