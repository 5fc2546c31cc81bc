// The --port-file of kilnd and kiln-agent: a server that listens on port 0 writes the port it got,
// so that a test or a supervisor can find it. The file appears complete or not at all: it is
// written under a temporary name (unique per process) and renamed over the path.
#ifndef KILN_RUNTIME_PORT_FILE_H_
#define KILN_RUNTIME_PORT_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace kiln::runtime {

// Writes "<port>\n" to `path` atomically. INTERNAL with the path when it cannot.
absl::Status WritePortFile(const std::string& path, int port);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_PORT_FILE_H_
