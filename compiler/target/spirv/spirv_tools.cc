#include "compiler/target/spirv/spirv_tools.h"

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include "absl/strings/str_cat.h"

namespace kiln::codegen::spirv {
namespace {

constexpr spv_target_env kEnv = SPV_ENV_VULKAN_1_1;

// Collects the tool's messages; each call owns its consumer, so this is thread-safe.
spvtools::MessageConsumer Collect(std::string* log) {
  return [log](spv_message_level_t, const char*, const spv_position_t& pos, const char* message) {
    absl::StrAppend(log, log->empty() ? "" : "\n", "word ", pos.index, ": ", message);
  };
}

}  // namespace

absl::Status Validate(const std::vector<uint32_t>& words, const std::string& what) {
  spvtools::SpirvTools tools(kEnv);
  std::string log;
  tools.SetMessageConsumer(Collect(&log));
  spvtools::ValidatorOptions options;
  if (!tools.Validate(words.data(), words.size(), options)) {
    return absl::InternalError(absl::StrCat("SPIR-V validation failed for ", what, ": ", log));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint32_t>> ValidateAndOptimize(const std::vector<uint32_t>& words, const std::string& what) {
  if (absl::Status st = Validate(words, what); !st.ok()) return st;
  spvtools::Optimizer opt(kEnv);
  std::string log;
  opt.SetMessageConsumer(Collect(&log));
  opt.RegisterPerformancePasses();
  std::vector<uint32_t> out;
  if (!opt.Run(words.data(), words.size(), &out)) {
    return absl::InternalError(absl::StrCat("SPIR-V optimizer failed for ", what, ": ", log));
  }
  if (absl::Status st = Validate(out, absl::StrCat(what, " (optimized)")); !st.ok()) return st;
  return out;
}

absl::StatusOr<std::string> Disassemble(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(kEnv);
  std::string log, text;
  tools.SetMessageConsumer(Collect(&log));
  if (!tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT)) {
    return absl::InvalidArgumentError(absl::StrCat("SPIR-V disassembly failed: ", log));
  }
  return text;
}

}  // namespace kiln::codegen::spirv
