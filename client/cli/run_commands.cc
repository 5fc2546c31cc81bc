#include "client/cli/run_commands.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/cli/exec_commands.h"
#include "client/cli/files.h"
#include "client/cli/remote_commands.h"
#include "client/cli/summary.h"
#include "compiler/driver/device_build.h"
#include "compiler/driver/kernel_build.h"
#include "compiler/driver/relax_build.h"
#include "compiler/driver/run.h"
#include "compiler/driver/tir_pipeline.h"
#include "compiler/script/load.h"
#include "compiler/script/printer/printer.h"
#include "runtime/npy.h"
#include "runtime/thread_pool.h"

namespace kiln::cli {
namespace {

int Fail(const char* cmd, const absl::Status& st) {
  std::fprintf(stderr, "kiln %s: %s\n", cmd, std::string(st.message()).c_str());
  return 1;
}

int Usage(const char* cmd, const std::string& message) {
  std::fprintf(stderr, "kiln %s: %s (see `kiln %s --help`)\n", cmd, message.c_str(), cmd);
  return 2;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

absl::Status WriteText(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return absl::OkStatus();
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// "dir/foo.py" -> "foo" + ext.
std::string DefaultOutputPath(const std::string& input, const std::string& ext) {
  std::string base = input.substr(input.find_last_of('/') + 1);
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base + ext;
}

// `kiln build --target cuda|nvptx|rocm|opencl ...` of a module's PrimFuncs: the device code of
// their GPU kernels (PTX, an HSA code object, OpenCL C), as the device runtime loads it.
int BuildDeviceCodeFile(const std::string& path, const ir::IRModule& module, const std::string& target,
                        std::string out, std::chrono::steady_clock::time_point start) {
  absl::StatusOr<driver::DeviceLowered> lowered = driver::LowerForDevice(module, target);
  if (!lowered.ok()) return Fail("build", lowered.status());
  const runtime::DeviceBlob& blob = lowered->blob;
  if (blob.kernels.empty()) {
    return Fail("build", absl::InvalidArgumentError(absl::StrCat(
                             "no GPU kernel in ", path, ": ", target,
                             " needs PrimFuncs with T.thread_binding or T.launch_thread regions")));
  }
  absl::Status st = WriteText(out, blob.code);
  if (!st.ok()) return Fail("build", st);
  std::vector<std::string> names;
  for (const runtime::DeviceKernelInfo& k : blob.kernels) names.push_back(k.name);
  std::fprintf(stderr, "kiln build: %s -> %s [%s, %s]: %zu kernel%s (%s) in %.2f s\n", path.c_str(), out.c_str(),
               target.c_str(), blob.format.c_str(), names.size(), names.size() == 1 ? "" : "s",
               absl::StrJoin(names, ", ").c_str(), SecondsSince(start));
  return 0;
}

// `kiln build` of a module with a Relax function, or with --exe: a VM executable (.kx).
int BuildExecutableFile(const std::string& path, const ir::IRModule& module, const std::string& target,
                        const std::vector<std::string>& entries, const driver::PassHooks& hooks, bool checked,
                        std::string out, std::chrono::steady_clock::time_point start) {
  driver::BuildOptions options;
  options.checked = checked;
  options.entries = entries;
  options.pipeline.hooks = hooks;
  options.kernel_hooks = hooks;
  absl::StatusOr<vm::Executable> exec = driver::BuildModuleExecutable(module, target, options);
  if (!exec.ok()) return Fail("build", exec.status());
  if (out.empty()) out = DefaultOutputPath(path, ".kx");
  std::string bytes = exec->Serialize();
  absl::Status st = WriteText(out, bytes);
  if (!st.ok()) return Fail("build", st);
  std::fprintf(stderr, "kiln build: %s -> %s [%s]: executable with %s, %zu bytes in %.2f s\n", path.c_str(),
               out.c_str(), target.c_str(), ExecutableSummary(*exec).c_str(), bytes.size(), SecondsSince(start));
  return 0;
}

absl::StatusOr<std::vector<int64_t>> ParseInts(absl::string_view text, const std::string& what) {
  std::vector<int64_t> out;
  if (text.empty()) return out;  // 0-d
  for (absl::string_view p : absl::StrSplit(text, ',')) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(p, &v)) return absl::InvalidArgumentError(absl::StrCat("bad ", what, " \"", text, "\""));
    out.push_back(v);
  }
  return out;
}

// The entry a user means: --entry, else the module's only exported PrimFunc.
absl::StatusOr<std::string> ChooseEntry(const ir::IRModule& module, const std::string& given) {
  if (!given.empty()) return given;
  std::vector<std::string> exported;
  for (const auto& [gv, f] : module.Functions()) {
    if (f.as<ir::PrimFuncNode>() != nullptr && !f->GetGlobalSymbol().empty()) exported.push_back(f->GetGlobalSymbol());
  }
  if (exported.size() == 1) return exported[0];
  return absl::InvalidArgumentError(absl::StrCat("the module has ", exported.size(),
                                                 " exported PrimFuncs; choose one with --entry (",
                                                 absl::StrJoin(exported, ", "), ")"));
}

}  // namespace

absl::StatusOr<driver::PassHooks> PassHooksFromArgs(const Args& args, const std::vector<std::string>& passes) {
  std::vector<std::string> selection;
  for (const std::string& v : args.GetAll("--print-after")) {
    for (absl::string_view p : absl::StrSplit(v, ',', absl::SkipEmpty())) selection.emplace_back(p);
  }
  absl::Status st = driver::CheckPassSelection(selection, passes);
  if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat("--print-after: ", st.message()));
  driver::PassHooks hooks;
  hooks.verify_each = args.Has("--verify-each");
  if (!selection.empty()) {
    hooks.after_pass = [selection](absl::string_view pass, const ir::IRModule& module) {
      if (!driver::PassSelected(selection, pass)) return;
      std::string text = script::printer::Print(module);
      std::fprintf(stderr, "# *** IR Dump After %.*s ***\n%s\n", static_cast<int>(pass.size()), pass.data(),
                   text.c_str());
    };
  }
  return hooks;
}

absl::StatusOr<ViewSpec> ParseViewSpec(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (parts.size() != 3 && parts.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat("bad --view \"", text, "\" (expected K:SHAPE:STRIDES[:OFFSET])"));
  }
  ViewSpec v;
  if (!absl::SimpleAtoi(parts[0], &v.index) || v.index < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bad input index in --view \"", text, "\""));
  }
  absl::StatusOr<std::vector<int64_t>> shape = ParseInts(parts[1], "view shape");
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::vector<int64_t>> strides = ParseInts(parts[2], "view strides");
  if (!strides.ok()) return strides.status();
  if (shape->size() != strides->size()) {
    return absl::InvalidArgumentError(absl::StrCat("--view \"", text, "\": shape and strides differ in rank"));
  }
  v.shape = *shape, v.strides = *strides;
  if (parts.size() == 4 && !absl::SimpleAtoi(parts[3], &v.offset)) {
    return absl::InvalidArgumentError(absl::StrCat("bad offset in --view \"", text, "\""));
  }
  return v;
}

int RunBuild(const Args& args) {
  if (args.Has("--remote")) return RunRemoteBuild(args);
  if (args.positional().size() != 1) return Usage("build", "expected one input file");
  const std::string& path = args.positional()[0];
  std::string target = args.Get("--target", "llvm");
  // A GPU target gives an executable (its kernels need the device library beside the host code),
  // or with an OUT ending in the device code's extension (.ptx, .hsaco, .cl) the kernels' device
  // code alone.
  bool device = driver::IsDeviceTarget(target);
  absl::StatusOr<std::string> kind =
      device ? absl::StatusOr<std::string>(target.substr(0, target.find(' '))) : driver::KernelTargetKind(target);
  if (!kind.ok()) return Usage("build", std::string(kind.status().message()));
  std::string out = args.Get("-o");
  bool emit_device = device && (absl::EndsWith(out, ".ptx") || absl::EndsWith(out, ".hsaco") || absl::EndsWith(out, ".cl"));
  bool emit_c = args.Has("--emit-c") || (*kind == "c" && absl::EndsWith(out, ".c"));
  bool emit_llvm = args.Has("--emit-llvm") || (*kind == "llvm" && absl::EndsWith(out, ".ll"));
  // An object file needs no linking, so any -mtriple can produce one.
  bool emit_object = *kind == "llvm" && absl::EndsWith(out, ".o");
  if (emit_c && *kind != "c") return Usage("build", "--emit-c needs --target c");
  if (emit_llvm && *kind != "llvm") return Usage("build", "--emit-llvm needs --target llvm");
  // A kernel library runs the TIR lowering; an executable runs the Relax pipeline first: a pass of
  // either may be named.
  std::vector<std::string> passes = driver::RelaxPassNames();
  passes.insert(passes.end(), driver::TIRPassNames().begin(), driver::TIRPassNames().end());
  absl::StatusOr<driver::PassHooks> hooks = PassHooksFromArgs(args, passes);
  if (!hooks.ok()) return Usage("build", std::string(hooks.status().message()));

  bool exe = args.Has("--exe");
  bool checked = args.Has("--checked");
  if (exe && (emit_c || emit_llvm || emit_object)) return Usage("build", "--exe writes an executable, not source");
  if (args.Has("--entry") && (emit_c || emit_llvm)) return Usage("build", "--entry selects executable entries");

  auto start = std::chrono::steady_clock::now();
  std::string diagnostics;  // the parser's, shown whether or not it succeeds
  absl::StatusOr<ir::IRModule> module = script::LoadModule(path, ScriptOptions(args), &diagnostics);
  std::fputs(diagnostics.c_str(), stderr);
  if (!module.ok()) return Fail("build", module.status());
  if (emit_device) return BuildDeviceCodeFile(path, *module, target, out, start);
  if (!emit_c && !emit_llvm && !emit_object && (exe || device || driver::HasRelaxFunction(*module))) {
    return BuildExecutableFile(path, *module, target, args.GetAll("--entry"), *hooks, checked, out, start);
  }
  if (emit_object) {
    absl::StatusOr<std::string> object = driver::EmitKernelObject(*module, target, *hooks, checked);
    if (!object.ok()) return Fail("build", object.status());
    absl::Status st = WriteText(out, *object);
    if (!st.ok()) return Fail("build", st);
    std::fprintf(stderr, "kiln build: object file %s -> %s [%s] (%.2f s)\n", path.c_str(), out.c_str(), target.c_str(),
                 SecondsSince(start));
    return 0;
  }
  if (emit_c || emit_llvm) {
    absl::StatusOr<std::string> text = driver::EmitKernelSource(*module, target, *hooks, checked);
    if (!text.ok()) return Fail("build", text.status());
    absl::Status st = WriteText(out.empty() ? "-" : out, *text);
    if (!st.ok()) return Fail("build", st);
    std::fprintf(stderr, "kiln build: %s %s -> %s (%.2f s)\n", emit_c ? "C source" : "LLVM assembly", path.c_str(),
                 out.empty() ? "stdout" : out.c_str(), SecondsSince(start));
    return 0;
  }
  if (out.empty()) out = DefaultOutputPath(path, ".so");
  std::vector<std::string> kernels;
  absl::Status st = driver::BuildKernelLibrary(*module, target, out, &kernels, *hooks, checked);
  if (!st.ok()) return Fail("build", st);
  std::fprintf(stderr, "kiln build: %s -> %s [%s]: %zu kernel%s (%s) in %.2f s\n", path.c_str(), out.c_str(),
               target.c_str(), kernels.size(), kernels.size() == 1 ? "" : "s", absl::StrJoin(kernels, ", ").c_str(),
               SecondsSince(start));
  return 0;
}

int RunRun(const Args& args) {
  if (args.positional().empty()) return Usage("run", "expected a TVMScript file");
  const std::string& path = args.positional()[0];
  if (IsVMRun(path, ScriptOptions(args))) return RunVM(args);
  if (WantsAgent(args) || args.Has("--remote")) {
    return Usage("run", "--agent, --farm and --remote run Relax modules and executables; a PrimFunc-only module runs here");
  }
  if (args.Has("--stateful")) return Usage("run", "--stateful applies to Relax functions and executables");
  // Inputs: every --input in order, then any further positional files (so `--input in/*.npy` works).
  std::vector<std::string> inputs = args.GetAll("--input");
  inputs.insert(inputs.end(), args.positional().begin() + 1, args.positional().end());
  std::string target_text = args.Get("--target", "llvm");
  absl::StatusOr<driver::RunTarget> target = driver::ParseRunTarget(target_text);
  if (!target.ok()) return Usage("run", std::string(target.status().message()));
  std::vector<ViewSpec> views;
  for (const std::string& v : args.GetAll("--view")) {
    absl::StatusOr<ViewSpec> spec = ParseViewSpec(v);
    if (!spec.ok()) return Usage("run", std::string(spec.status().message()));
    if (spec->index >= static_cast<int>(inputs.size())) {
      return Usage("run", absl::StrCat("--view ", v, " names input ", spec->index, " of ", inputs.size()));
    }
    views.push_back(*spec);
  }
  absl::StatusOr<int> threads = ThreadsOption(args);
  if (!threads.ok()) return Usage("run", std::string(threads.status().message()));
  // Checked before the kernel runs, so a long run never ends in "cannot write".
  std::string out_dir = args.Get("--output-dir");
  if (!out_dir.empty()) {
    absl::Status st = PrepareOutputDir(out_dir);
    if (!st.ok()) return Fail("run", st);
  }

  std::string diagnostics;  // the parser's, shown whether or not it succeeds
  absl::StatusOr<ir::IRModule> module = script::LoadModule(path, ScriptOptions(args), &diagnostics);
  std::fputs(diagnostics.c_str(), stderr);
  if (!module.ok()) return Fail("run", module.status());
  absl::StatusOr<std::string> entry = ChooseEntry(*module, args.Get("--entry"));
  if (!entry.ok()) return Fail("run", entry.status());
  absl::StatusOr<ir::PrimFunc> func = driver::FindEntry(*module, *entry);
  if (!func.ok()) return Fail("run", func.status());
  std::vector<driver::ParamInfo> params = driver::DescribeParams(*func);
  if (inputs.size() != params.size()) {
    std::vector<std::string> names;
    for (const driver::ParamInfo& p : params) names.push_back(p.name);
    return Fail("run", absl::InvalidArgumentError(absl::StrCat(*entry, " takes ", params.size(), " inputs (",
                                                               absl::StrJoin(names, ", "), "), got ", inputs.size())));
  }
  std::vector<runtime::Tensor> tensors;
  for (const std::string& in : inputs) {
    absl::StatusOr<runtime::Tensor> t = runtime::ReadNpy(in);
    if (!t.ok()) return Fail("run", t.status());
    tensors.push_back(*t);
  }
  for (const ViewSpec& v : views) {
    absl::StatusOr<runtime::Tensor> view = tensors[v.index].View(v.shape, v.strides, v.offset);
    if (!view.ok()) return Fail("run", absl::InvalidArgumentError(absl::StrCat("--view for input ", v.index, " (",
                                                                             inputs[v.index], "): ", view.status().message())));
    tensors[v.index] = *view;
  }

  // The pool lives for the whole run; kernels reach it through the KilnKernelEnv.
  std::unique_ptr<runtime::ThreadPool> pool;
  driver::RunOptions options;
  options.target = *target;
  options.checked = args.Has("--checked");
  if (options.checked && (*target == driver::RunTarget::kInterp || *target == driver::RunTarget::kOpenCL)) {
    return Usage("run", "--checked applies to the llvm and c targets (the interpreter always checks)");
  }
  if (*target == driver::RunTarget::kLLVM) options.llvm_target = target_text;
  if (*target == driver::RunTarget::kDevice) options.device_target = target_text;
  if (*target != driver::RunTarget::kInterp) {
    pool = std::make_unique<runtime::ThreadPool>(*threads);
    options.env = pool->env();
  }
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<driver::Runner>> runner = driver::Runner::Create(*module, options);
  if (!runner.ok()) return Fail("run", runner.status());
  double build_s = SecondsSince(start);
  start = std::chrono::steady_clock::now();
  absl::StatusOr<KilnAny> result = (*runner)->Call(*entry, tensors);
  if (!result.ok()) return Fail("run", result.status());
  double run_s = SecondsSince(start);

  int written = 0;
  if (!out_dir.empty()) {
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].is_buffer) continue;
      std::string file = absl::StrCat(out_dir, "/arg", i, ".npy");
      absl::Status st = runtime::WriteNpy(file, tensors[i]);
      if (!st.ok()) return Fail("run", st);
      ++written;
    }
  }
  if (result->type_index != kKilnNone) std::printf("%s\n", driver::FormatReturn(*result).c_str());
  if (!args.Has("--quiet")) {
    std::fprintf(stderr, "kiln run: %s on %s: build %.3f s, run %.3f s%s\n", entry->c_str(),
                 driver::RunTargetName(*target), build_s, run_s,
                 out_dir.empty() ? "" : absl::StrCat(", ", written, " buffers -> ", out_dir).c_str());
  }
  return 0;
}

}  // namespace kiln::cli
