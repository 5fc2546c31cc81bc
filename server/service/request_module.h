// The module a request carries (CompileRequest, CheckRequest, FormatRequest): TVMScript parsed and
// verified, or the serialized IRModule `kiln ir --to bin` writes, deserialized and verified the
// same way (a serialized module is untrusted input like any source).
#ifndef KILN_SERVER_SERVICE_REQUEST_MODULE_H_
#define KILN_SERVER_SERVICE_REQUEST_MODULE_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "proto/compile.pb.h"

namespace kiln::server {

struct ModuleSource {
  const std::string* source = nullptr;  // TVMScript text, or
  const std::string* ir = nullptr;      // serialized IR
  std::string filename;                 // for diagnostics only; "<input>" when empty
  // Captured Python values for the source (script::ParseOptions::defines).
  std::map<std::string, std::string> defines;
};

// The parse result (a module, or a lone function for Format) and every diagnostic, warnings
// included, in `diagnostics`. INVALID_ARGUMENT when there is no module, it does not parse or
// deserialize, or it fails verification.
absl::StatusOr<ir::ObjectRef> LoadRequestModule(const ModuleSource& in, v1::Diagnostics* diagnostics);

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_REQUEST_MODULE_H_
