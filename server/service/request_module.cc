#include "server/service/request_module.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/serialize.h"
#include "compiler/script/script.h"
#include "server/service/rpc_status.h"

namespace kiln::server {

absl::StatusOr<ir::ObjectRef> LoadRequestModule(const ModuleSource& in, v1::Diagnostics* diagnostics) {
  std::string filename = in.filename.empty() ? "<input>" : in.filename;
  ir::DiagnosticList diags;
  absl::StatusOr<ir::ObjectRef> result;
  std::string source;
  if (in.source != nullptr) {
    source = *in.source;
    script::ParseOptions options;
    options.defines = in.defines;
    result = script::ParseScript(source, filename, &diags, options);
  } else if (in.ir != nullptr && !in.defines.empty()) {
    result = absl::InvalidArgumentError("extra_vars apply to TVMScript source, not to a serialized module");
  } else if (in.ir != nullptr) {
    result = ir::Deserialize(*in.ir);
    if (!result.ok()) {
      result = absl::InvalidArgumentError(absl::StrCat(filename, ": not a serialized IRModule: ", result.status().message()));
    } else if (!script::VerifyModule(script::AsModule(*result), &diags).ok()) {
      result = absl::InvalidArgumentError(absl::StrCat(filename, ": the module does not verify"));
    }
  } else {
    result = absl::InvalidArgumentError("the request has neither `source` nor `ir`");
  }
  for (const ir::Diagnostic& d : diags.items()) *diagnostics->add_diagnostics() = ToProto(d, source, filename);
  return result;
}

}  // namespace kiln::server
