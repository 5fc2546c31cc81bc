#include "client/cli/script_commands.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/cli/files.h"
#include "client/cli/remote_commands.h"
#include "compiler/ir/diagnostic.h"
#include "compiler/ir/serialize.h"
#include "compiler/ir/structural.h"
#include "compiler/script/load.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"

namespace kiln::cli {

namespace {

// OK when `text`, the printed form of `parsed`, parses back to a structurally equal program.
absl::Status ReparsesEqual(const ir::ObjectRef& parsed, const std::string& text, const std::string& path,
                           const script::ParseInfo& info) {
  script::ParseOptions again;
  // TVM prints no check_well_formed=False: the text is read back as the source was.
  if (info.well_formed_check_off) again.check_well_formed = false;
  absl::StatusOr<ir::ObjectRef> second = script::ParseScript(text, path + " (formatted)", nullptr, again);
  if (!second.ok()) {
    return absl::InternalError(absl::StrCat("the formatted text does not parse:\n", second.status().message()));
  }
  std::string where;
  if (!ir::StructuralEqual(parsed, *second, false, &where)) {
    return absl::InternalError(absl::StrCat("the formatted text parses to a different program (at ", where, ")"));
  }
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, const std::string& data) {
  if (path == "-") {
    std::fwrite(data.data(), 1, data.size(), stdout);
    return absl::OkStatus();
  }
  std::ofstream out(path, std::ios::binary);
  out << data;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

script::ParseOptions OptionsFrom(const Args& args) {
  script::ParseOptions o;
  o.name = args.Get("--name");
  o.defines = Defines(args);
  return o;
}

// Parses one TVMScript file, printing its diagnostics (warnings too) to stderr.
absl::StatusOr<ir::ObjectRef> ParseAndReport(const std::string& path, const script::ParseOptions& options) {
  std::string diagnostics;
  absl::StatusOr<ir::ObjectRef> r = script::ParseFile(path, options, &diagnostics);
  std::fputs(diagnostics.c_str(), stderr);
  return r;
}

}  // namespace

int RunCheck(const Args& args) {
  if (args.Has("--remote")) return RunRemoteCheck(args);
  if (args.positional().empty()) {
    std::fprintf(stderr, "kiln check: no input files\n");
    return 2;
  }
  int bad = 0;
  for (const std::string& path : args.positional()) {
    absl::StatusOr<ir::ObjectRef> r = ParseAndReport(path, OptionsFrom(args));
    if (!r.ok()) {
      if (!absl::IsInvalidArgument(r.status())) std::fprintf(stderr, "kiln check: %s\n", std::string(r.status().message()).c_str());
      ++bad;
    }
  }
  return bad == 0 ? 0 : 1;
}

int RunFmt(const Args& args) {
  if (args.Has("--remote")) return RunRemoteFmt(args);
  if (args.positional().size() != 1) {
    std::fprintf(stderr, "kiln fmt: expected one input file\n");
    return 2;
  }
  const std::string& path = args.positional()[0];
  bool in_place = args.Has("-i");
  // Rewriting the file with one of its definitions would delete the others.
  if (in_place && (args.Has("--name") || args.Has("--function"))) {
    std::fprintf(stderr, "kiln fmt: -i rewrites the whole file; it cannot be combined with --name or --function\n");
    return 2;
  }
  absl::StatusOr<std::string> src = script::ReadFile(path);
  if (!src.ok()) {
    std::fprintf(stderr, "kiln fmt: %s\n", std::string(src.status().message()).c_str());
    return 1;
  }
  ir::DiagnosticList diags;
  script::ParseInfo info;
  absl::StatusOr<ir::ObjectRef> r = script::ParseScript(*src, path, &diags, OptionsFrom(args), &info);
  std::fputs(ir::RenderAll(diags, *src).c_str(), stderr);
  if (!r.ok()) return 1;
  script::printer::PrinterOptions po = script::PrintOptionsFor(*r);
  po.module_alias = args.Get("--module-alias", "cls");
  po.show_all_ty = !args.Has("--hide-inferable-ty");
  ir::ObjectRef node = *r;
  if (args.Has("--function")) {
    // One function of the module printed on its own, as TVM's `mod["f"].script()` prints it.
    const std::string function = args.Get("--function");
    const auto* mod = r->as<ir::IRModuleNode>();
    if (mod == nullptr) {
      std::fprintf(stderr, "kiln fmt: --function %s needs a module (@I.ir_module) in %s\n", function.c_str(),
                   path.c_str());
      return 1;
    }
    node = ir::ObjectRef();
    for (const auto& [gv, f] : mod->functions.items()) {
      if (gv->name == function) node = f;
    }
    if (!node.defined()) {
      std::fprintf(stderr, "kiln fmt: the module in %s has no function named %s\n", path.c_str(), function.c_str());
      return 1;
    }
    po.func_name = function;
  }
  std::string text = script::printer::Print(node, po);
  if (!in_place) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  // The user's file is replaced only by text that reads back as the same program.
  absl::Status st = ReparsesEqual(*r, text, path, info);
  if (!st.ok()) {
    std::fprintf(stderr, "kiln fmt: %s left unchanged: %s\n", path.c_str(), std::string(st.message()).c_str());
    return 1;
  }
  st = ReplaceFileAtomically(path, text);
  if (!st.ok()) {
    std::fprintf(stderr, "kiln fmt: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  return 0;
}

int RunRoundtrip(const Args& args) {
  if (args.positional().empty()) {
    std::fprintf(stderr, "kiln roundtrip: no input files\n");
    return 2;
  }
  size_t ok = 0;
  for (const std::string& path : args.positional()) {
    absl::StatusOr<std::string> src = script::ReadFile(path);
    absl::Status st = src.ok() ? script::CheckRoundTrip(*src, path, nullptr, OptionsFrom(args)) : src.status();
    if (st.ok()) {
      ++ok;
      std::printf("ok %s\n", path.c_str());
    } else {
      std::string reason(st.message());
      size_t nl = reason.find('\n');
      std::printf("FAIL %s: %s\n", path.c_str(), reason.substr(0, nl).c_str());
      if (nl != std::string::npos) std::fputs(reason.substr(nl + 1).c_str(), stderr);
    }
    std::fflush(stdout);
  }
  if (args.Has("--summary")) std::printf("%zu/%zu round-trip\n", ok, args.positional().size());
  return ok == args.positional().size() ? 0 : 1;
}

int RunIr(const Args& args) {
  if (args.positional().size() != 1) {
    std::fprintf(stderr, "kiln ir: expected one input file\n");
    return 2;
  }
  std::string to = args.Get("--to", "json");
  std::string out = args.Get("-o", "-");
  absl::StatusOr<std::string> data = script::ReadFile(args.positional()[0]);
  if (!data.ok()) {
    std::fprintf(stderr, "kiln ir: %s\n", std::string(data.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<ir::ObjectRef> node;
  const std::string& path = args.positional()[0];
  if (ir::LooksLikeSerializedIR(*data)) {
    node = ir::Deserialize(*data);
  } else if (absl::EndsWith(path, ".json")) {
    node = ir::DeserializeFromJson(*data);
  } else {
    node = ParseAndReport(path, OptionsFrom(args));
    if (!node.ok()) return 1;
  }
  if (!node.ok()) {
    std::fprintf(stderr, "kiln ir: %s: %s\n", path.c_str(), std::string(node.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::string> result;
  if (to == "json") {
    result = ir::SerializeToJson(*node);
  } else if (to == "bin") {
    if (out == "-") {
      std::fprintf(stderr, "kiln ir: --to bin needs -o FILE\n");
      return 2;
    }
    result = ir::Serialize(*node);
  } else if (to == "script") {
    result = script::printer::Print(*node);
  } else {
    std::fprintf(stderr, "kiln ir: --to must be json, bin or script\n");
    return 2;
  }
  if (!result.ok()) {
    std::fprintf(stderr, "kiln ir: %s\n", std::string(result.status().message()).c_str());
    return 1;
  }
  absl::Status st = WriteFile(out, *result);
  if (!st.ok()) {
    std::fprintf(stderr, "kiln ir: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace kiln::cli
