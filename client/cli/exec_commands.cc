#include "client/cli/exec_commands.h"
#include "client/cli/files.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "client/cli/remote_commands.h"
#include "client/cpp/remote_device.h"
#include "compiler/driver/relax_build.h"
#include "compiler/driver/run.h"
#include "compiler/script/load.h"
#include "runtime/npy.h"
#include "runtime/profiling/time_evaluator.h"
#include "runtime/vm/vm.h"

namespace kiln::cli {
namespace {

// How a module built from source is read (`--define`) and compiled (`--checked`).
driver::BuildOptions BuildOptionsFrom(const Args& args) {
  driver::BuildOptions o;
  o.defines = Defines(args);
  o.checked = args.Has("--checked");
  return o;
}

using runtime::Tensor;
using vm::Value;

// One line per error, as scripts grep for it: the VM's "\n  in call to ..." context joins with "; ".
int Fail(const char* cmd, const absl::Status& st) {
  std::string message(st.message());
  absl::StripTrailingAsciiWhitespace(&message);
  message = absl::StrReplaceAll(message, {{"\n  ", "; "}, {"\n", "; "}});
  std::fprintf(stderr, "kiln %s: %s\n", cmd, message.c_str());
  return 1;
}

int Usage(const char* cmd, const std::string& message) {
  std::fprintf(stderr, "kiln %s: %s (see `kiln %s --help`)\n", cmd, message.c_str(), cmd);
  return 2;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool HasExecutableMagic(const std::string& path) {
  // Only a regular file is opened here: a FIFO would block, and anything else is refused by name
  // when it is loaded.
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  uint64_t magic = 0;
  if (!in.read(reinterpret_cast<char*>(&magic), sizeof(magic))) return false;
  return magic == vm::kExecutableMagic || magic == vm::kExecutableMagicV1;
}

// How one parameter of the entry takes its value from the flat list of .npy inputs: a tensor, an
// R.Prim scalar (a one-element array), an R.Shape (a 1-D integer array) or a tuple of those.
struct Slot {
  enum class Kind { kTensor, kPrim, kShape, kTuple };
  Kind kind = Kind::kTensor;
  std::vector<Slot> fields;        // kTuple
  ir::DataType dtype;              // kTensor / kPrim (void: unknown)
  std::vector<int64_t> shape;      // kTensor: static dims, -1 for a symbolic one
  bool shape_known = false;
};

Slot SlotOf(const ir::Type& ty) {
  Slot s;
  if (const auto* t = ty.as<ir::TupleTypeNode>()) {
    s.kind = Slot::Kind::kTuple;
    for (const ir::Type& f : t->fields) s.fields.push_back(SlotOf(f));
  } else if (const auto* p = ty.as<ir::PrimTypeNode>()) {
    s.kind = Slot::Kind::kPrim;
    s.dtype = p->dtype;
  } else if (ty.as<ir::ShapeTypeNode>() != nullptr) {
    s.kind = Slot::Kind::kShape;
  } else if (const auto* t = ty.as<ir::TensorTypeNode>()) {
    s.dtype = t->dtype;
    if (const auto* shape = t->shape.as<ir::relax::ShapeExprNode>()) {
      s.shape_known = true;
      for (const ir::PrimExpr& d : shape->values) {
        const auto* imm = d.as<ir::IntImmNode>();
        s.shape.push_back(imm != nullptr ? imm->value : -1);
      }
    }
  }
  return s;
}

// The parameter slots of Relax function `entry` (by name or global_symbol); an empty optional when
// the module has no such Relax function (the VM then reports the unknown name).
std::optional<std::vector<Slot>> EntrySlots(const ir::IRModule& module, const std::string& entry) {
  for (const auto& [gv, f] : module.Functions()) {
    const auto* fn = f.as<ir::relax::FunctionNode>();
    if (fn == nullptr || (gv->name != entry && fn->GetGlobalSymbol() != entry)) continue;
    std::vector<Slot> slots;
    for (const ir::Var& p : fn->params) slots.push_back(SlotOf(p->ty));
    return slots;
  }
  return std::nullopt;
}

int CountLeaves(const Slot& s) {
  if (s.kind != Slot::Kind::kTuple) return 1;
  int n = 0;
  for (const Slot& f : s.fields) n += CountLeaves(f);
  return n;
}

absl::StatusOr<Value> ScalarValue(const Tensor& t, const std::string& file) {
  if (t.numel() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": a scalar parameter takes a one-element array, got ",
                                                   t.numel(), " elements"));
  }
  absl::StatusOr<Tensor> c = t.Contiguous();
  if (!c.ok()) return c.status();
  DLDataType dt = c->dtype();
  const void* p = c->data();
  if (dt.code == runtime::kDLBoolCode) return Value::Bool(*static_cast<const uint8_t*>(p) != 0);
  if (dt.code == kDLFloat && dt.bits == 64) return Value::Float(*static_cast<const double*>(p));
  if (dt.code == kDLFloat && dt.bits == 32) return Value::Float(*static_cast<const float*>(p));
  if ((dt.code == kDLInt || dt.code == kDLUInt) && dt.lanes == 1) {
    int64_t v = 0;
    switch (dt.bits) {
      case 8: v = dt.code == kDLInt ? *static_cast<const int8_t*>(p) : *static_cast<const uint8_t*>(p); break;
      case 16: v = dt.code == kDLInt ? *static_cast<const int16_t*>(p) : *static_cast<const uint16_t*>(p); break;
      case 32: v = dt.code == kDLInt ? *static_cast<const int32_t*>(p) : *static_cast<const uint32_t*>(p); break;
      case 64: v = *static_cast<const int64_t*>(p); break;
      default: return absl::InvalidArgumentError(absl::StrCat(file, ": unsupported scalar dtype"));
    }
    return Value::Int(v);
  }
  return absl::InvalidArgumentError(absl::StrCat(file, ": unsupported scalar dtype ", runtime::DTypeString(dt)));
}

absl::StatusOr<Value> ShapeValue(const Tensor& t, const std::string& file) {
  if (t.ndim() != 1 || t.dtype().code != kDLInt || t.dtype().bits != 64) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": an R.Shape parameter takes a 1-D int64 array"));
  }
  absl::StatusOr<Tensor> c = t.Contiguous();
  if (!c.ok()) return c.status();
  const auto* p = static_cast<const int64_t*>(c->data());
  return Value::Shape(std::vector<int64_t>(p, p + c->numel()));
}

absl::StatusOr<Value> Consume(const Slot& slot, const std::vector<std::string>& files, size_t* next) {
  if (slot.kind == Slot::Kind::kTuple) {
    std::vector<Value> fields;
    for (const Slot& f : slot.fields) {
      absl::StatusOr<Value> v = Consume(f, files, next);
      if (!v.ok()) return v.status();
      fields.push_back(*v);
    }
    return Value::Tuple(std::move(fields));
  }
  const std::string& file = files[(*next)++];
  absl::StatusOr<Tensor> t = runtime::ReadNpy(file);
  if (!t.ok()) return t.status();
  if (slot.kind == Slot::Kind::kPrim) return ScalarValue(*t, file);
  if (slot.kind == Slot::Kind::kShape) return ShapeValue(*t, file);
  return Value::Tensor(*t);
}

// A random value for a slot (for `kiln bench` without --input); needs static shapes.
absl::StatusOr<Value> RandomValue(const Slot& slot, std::mt19937_64* rng) {
  switch (slot.kind) {
    case Slot::Kind::kTuple: {
      std::vector<Value> fields;
      for (const Slot& f : slot.fields) {
        absl::StatusOr<Value> v = RandomValue(f, rng);
        if (!v.ok()) return v.status();
        fields.push_back(*v);
      }
      return Value::Tuple(std::move(fields));
    }
    case Slot::Kind::kPrim:
      if (slot.dtype.is_float()) return Value::Float(1.0);
      return Value::Int(1);
    case Slot::Kind::kShape:
      return absl::InvalidArgumentError("an R.Shape parameter needs --input");
    case Slot::Kind::kTensor:
      break;
  }
  bool symbolic = !slot.shape_known;
  for (int64_t d : slot.shape) symbolic |= d < 0;
  if (symbolic || slot.dtype.is_void()) {
    return absl::InvalidArgumentError("a parameter with a symbolic shape or unknown dtype needs --input");
  }
  absl::StatusOr<DLDataType> dt = runtime::ParseDType(slot.dtype.ToString());
  if (!dt.ok()) return dt.status();
  absl::StatusOr<Tensor> t = Tensor::Empty(slot.shape, *dt);
  if (!t.ok()) return t.status();
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> small(0, 7);
  int64_t n = t->numel();
  if (dt->code == kDLFloat && dt->bits == 32) {
    auto* p = static_cast<float*>(t->data());
    for (int64_t i = 0; i < n; ++i) p[i] = normal(*rng);
  } else if (dt->code == kDLFloat && dt->bits == 64) {
    auto* p = static_cast<double*>(t->data());
    for (int64_t i = 0; i < n; ++i) p[i] = normal(*rng);
  } else if ((dt->code == kDLInt || dt->code == kDLUInt) && dt->bits == 32) {
    auto* p = static_cast<int32_t*>(t->data());
    for (int64_t i = 0; i < n; ++i) p[i] = small(*rng);
  } else if ((dt->code == kDLInt || dt->code == kDLUInt) && dt->bits == 64) {
    auto* p = static_cast<int64_t*>(t->data());
    for (int64_t i = 0; i < n; ++i) p[i] = small(*rng);
  }  // other dtypes stay zero-filled
  return Value::Tensor(*t);
}

// What `kiln run` and `kiln bench` share: the executable (built or loaded), where it runs (a local
// VM, or a session on a kiln-agent) and the inputs.
struct Session {
  std::shared_ptr<const vm::Executable> exec;
  std::unique_ptr<vm::VirtualMachine> vm;   // a local run
  std::unique_ptr<RemoteDevice> device;     // --agent / --farm
  std::string entry;
  std::vector<Value> args;
  double build_s = 0;

  absl::StatusOr<int64_t> Arity() const {
    if (vm != nullptr) return vm->GetFunctionArity(entry);
    auto it = exec->func_map.find(entry);
    if (it == exec->func_map.end()) return absl::NotFoundError(absl::StrCat("unknown function \"", entry, "\""));
    const vm::FuncInfo& f = exec->func_table[it->second];
    return f.kind == vm::FuncInfo::Kind::kPackedFunc ? int64_t{-1} : f.num_args;
  }
  std::string ParamName(int64_t i) const {
    if (vm != nullptr) {
      absl::StatusOr<std::string> name = vm->GetFunctionParamName(entry, i);
      return name.ok() ? *name : "?";
    }
    const vm::FuncInfo& f = exec->func_table[exec->func_map.at(entry)];
    return i < static_cast<int64_t>(f.param_names.size()) ? f.param_names[i] : "?";
  }
  // set_input, invoke_stateful, get_outputs (flattened).
  absl::StatusOr<std::vector<Value>> RunStateful() {
    if (vm != nullptr) {
      absl::Status st = vm->SetInput(entry, args);
      if (st.ok()) st = vm->InvokeStateful(entry);
      if (!st.ok()) return st;
      return vm->GetOutputs(entry);
    }
    absl::Status st = device->SetInput(entry, args);
    if (st.ok()) st = device->InvokeStateful(entry);
    if (!st.ok()) return st;
    absl::StatusOr<Value> out = device->GetOutputs(entry);
    if (!out.ok()) return out.status();
    std::vector<Value> flat;
    vm::FlattenTuples(*out, &flat);
    return flat;
  }
  absl::StatusOr<Value> Invoke() { return vm != nullptr ? vm->Invoke(entry, args) : device->Invoke(entry, args); }
  // time_evaluator over invoke_stateful after one set_input.
  absl::StatusOr<std::vector<double>> TimeStateful(const profiling::TimeEvalOptions& o) {
    if (vm != nullptr) {
      absl::Status st = vm->SetInput(entry, args);
      if (!st.ok()) return st;
      return vm->TimeEvaluatorStateful(entry, o);
    }
    absl::Status st = device->SetInput(entry, args);
    if (!st.ok()) return st;
    v1::TimeEvaluatorRequest params;
    params.set_function(entry);
    params.set_stateful(true);
    params.set_number(o.number);
    params.set_repeat(o.repeat);
    params.set_min_repeat_ms(o.min_repeat_ms);
    params.set_limit_zero_time_iterations(o.limit_zero_time_iterations);
    params.set_cooldown_interval_ms(o.cooldown_interval_ms);
    params.set_repeats_to_cooldown(o.repeats_to_cooldown);
    params.set_cache_flush_bytes(o.cache_flush_bytes);
    absl::StatusOr<v1::TimeEvaluatorResponse> r = device->TimeEvaluator(params);
    if (!r.ok()) return r.status();
    return std::vector<double>(r->results().begin(), r->results().end());
  }
};

// The executable for an agent: compiled by kilnd (--remote: the agent fetches it by digest), else
// built here, or read from a .kx, and uploaded.
absl::Status OpenOnAgent(const Args& args, const std::string& path, int threads, Session* s) {
  std::string bytes, digest;
  if (args.Has("--remote") && !HasExecutableMagic(path)) {
    absl::StatusOr<RemoteExecutable> compiled = CompileOnKilnd(args, path);
    if (!compiled.ok()) return compiled.status();
    bytes = std::move(compiled->bytes);
    digest = std::move(compiled->digest);
  } else {
    absl::StatusOr<vm::Executable> exec = driver::LoadOrBuildExecutable(path, args.Get("--target", "llvm"),
                                                                                 BuildOptionsFrom(args));
    if (!exec.ok()) return exec.status();
    bytes = exec->Serialize();
  }
  // A local copy tells the entry's parameters; the agent validates its own.
  absl::StatusOr<vm::Executable> exec = vm::Executable::Deserialize(bytes);
  if (!exec.ok()) return exec.status();
  s->exec = std::make_shared<const vm::Executable>(*std::move(exec));
  absl::StatusOr<std::unique_ptr<RemoteDevice>> device = OpenAgent(args, threads);
  if (!device.ok()) return device.status();
  s->device = *std::move(device);
  absl::StatusOr<v1::LoadExecutableResponse> loaded =
      digest.empty() ? s->device->UploadExecutable(bytes) : s->device->LoadExecutable(digest);
  return loaded.status();
}

absl::StatusOr<Session> OpenSession(const Args& args, bool random_inputs) {
  const std::string& path = args.positional()[0];
  std::vector<std::string> inputs = args.GetAll("--input");
  inputs.insert(inputs.end(), args.positional().begin() + 1, args.positional().end());
  absl::StatusOr<int> threads = ThreadsOption(args);
  if (!threads.ok()) return threads.status();
  Session s;
  s.entry = args.Get("--entry", "main");

  // Parameter structure, when the source is at hand (an executable records only counts and names).
  std::optional<std::vector<Slot>> slots;
  if (!HasExecutableMagic(path)) {
    std::string diagnostics;  // the parser's, shown whether or not it succeeds
    absl::StatusOr<ir::IRModule> module = script::LoadModule(path, ScriptOptions(args), &diagnostics);
    std::fputs(diagnostics.c_str(), stderr);
    if (!module.ok()) return module.status();
    slots = EntrySlots(*module, s.entry);
  }

  // Code with instructions this CPU lacks would end in SIGILL: refused by name before building.
  absl::Status runs = driver::CheckRunsHere(args.Get("--target", "llvm"));
  if (!runs.ok()) return runs;
  auto start = std::chrono::steady_clock::now();
  if (WantsAgent(args)) {
    absl::Status st = OpenOnAgent(args, path, *threads, &s);
    if (!st.ok()) return st;
    s.build_s = SecondsSince(start);
  } else {
    absl::StatusOr<vm::Executable> exec = driver::LoadOrBuildExecutable(path, args.Get("--target", "llvm"),
                                                                                 BuildOptionsFrom(args));
    if (!exec.ok()) return exec.status();
    s.build_s = SecondsSince(start);
    s.exec = std::make_shared<const vm::Executable>(*std::move(exec));
    vm::VMOptions options;
    options.num_threads = *threads;
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine = vm::VirtualMachine::Create(s.exec, options);
    if (!machine.ok()) return machine.status();
    s.vm = *std::move(machine);
  }
  absl::StatusOr<int64_t> arity = s.Arity();
  if (!arity.ok()) return arity.status();

  if (inputs.empty() && random_inputs && *arity > 0) {
    if (!slots) return absl::InvalidArgumentError("random inputs need the module's source; give --input files");
    std::mt19937_64 rng(0);
    for (const Slot& slot : *slots) {
      absl::StatusOr<Value> v = RandomValue(slot, &rng);
      if (!v.ok()) return v.status();
      s.args.push_back(*v);
    }
    return s;
  }
  int expected = 0;
  if (slots) {
    for (const Slot& slot : *slots) expected += CountLeaves(slot);
  } else {
    expected = static_cast<int>(*arity);
  }
  if (static_cast<int>(inputs.size()) != expected) {
    std::vector<std::string> names;
    for (int64_t i = 0; i < *arity; ++i) names.push_back(s.ParamName(i));
    return absl::InvalidArgumentError(absl::StrCat(s.entry, " takes ", expected, " input", expected == 1 ? "" : "s",
                                                   " (", absl::StrJoin(names, ", "), "), got ", inputs.size()));
  }
  size_t next = 0;
  for (int64_t i = 0; i < *arity; ++i) {
    Slot tensor_slot;
    absl::StatusOr<Value> v = Consume(slots ? (*slots)[i] : tensor_slot, inputs, &next);
    if (!v.ok()) return v.status();
    s.args.push_back(*v);
  }
  return s;
}

// One flattened result as the array numpy would hold: tensors as they are, shapes as int64
// vectors, scalars as 0-d arrays.
absl::StatusOr<Tensor> ResultArray(const Value& v) {
  auto scalar = [](DLDataType dt, const void* src, size_t n) -> absl::StatusOr<Tensor> {
    absl::StatusOr<Tensor> t = Tensor::Empty({}, dt);
    if (t.ok()) std::memcpy(t->data(), src, n);
    return t;
  };
  switch (v.kind()) {
    case Value::Kind::kTensor:
      return v.as_tensor();
    case Value::Kind::kShape: {
      const std::vector<int64_t>& dims = v.as_shape();
      absl::StatusOr<Tensor> t = Tensor::Empty({static_cast<int64_t>(dims.size())}, DLDataType{kDLInt, 64, 1});
      if (t.ok() && !dims.empty()) std::memcpy(t->data(), dims.data(), dims.size() * sizeof(int64_t));
      return t;
    }
    case Value::Kind::kInt: {
      int64_t x = v.as_int();
      return scalar(DLDataType{kDLInt, 64, 1}, &x, sizeof(x));
    }
    case Value::Kind::kBool: {
      uint8_t x = v.as_bool() ? 1 : 0;
      return scalar(DLDataType{runtime::kDLBoolCode, 8, 1}, &x, sizeof(x));
    }
    case Value::Kind::kFloat: {
      double x = v.as_float();
      return scalar(DLDataType{kDLFloat, 64, 1}, &x, sizeof(x));
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat("a result of kind ", v.kind_name(), " cannot be written as .npy"));
  }
}

}  // namespace

script::ParseOptions ScriptOptions(const Args& args) {
  script::ParseOptions o;
  o.name = args.Get("--name");
  o.defines = Defines(args);
  return o;
}

bool IsVMRun(const std::string& path, const script::ParseOptions& options) {
  if (HasExecutableMagic(path)) return true;
  std::string diagnostics;  // the parser's, shown whether or not it succeeds
  absl::StatusOr<ir::IRModule> module = script::LoadModule(path, options, &diagnostics);
  std::fputs(diagnostics.c_str(), stderr);
  return module.ok() && driver::HasRelaxFunction(*module);
}

int RunVM(const Args& args) {
  if (args.positional().empty()) return Usage("run", "expected a TVMScript file or an executable");
  if (args.Get("--target", "llvm") == "interp") {
    return Usage("run", "--target interp runs PrimFuncs only; a Relax module needs llvm or c");
  }
  if (args.Has("--view")) return Usage("run", "--view applies to PrimFunc entries only");
  if (std::string bad = CheckAgentOptions(args); !bad.empty()) return Usage("run", bad);
  // Checked before the function runs, so a long run never ends in "cannot write".
  std::string out_dir = args.Get("--output-dir");
  if (!out_dir.empty()) {
    absl::Status st = PrepareOutputDir(out_dir);
    if (!st.ok()) return Fail("run", st);
  }
  absl::StatusOr<Session> s = OpenSession(args, /*random_inputs=*/false);
  if (!s.ok()) return Fail("run", s.status());
  auto start = std::chrono::steady_clock::now();
  std::vector<Value> results;
  if (args.Has("--stateful")) {
    absl::StatusOr<std::vector<Value>> outs = s->RunStateful();
    if (!outs.ok()) return Fail("run", outs.status());
    results = *std::move(outs);
  } else {
    absl::StatusOr<Value> r = s->Invoke();
    if (!r.ok()) return Fail("run", r.status());
    vm::FlattenTuples(*r, &results);
  }
  double run_s = SecondsSince(start);

  if (!out_dir.empty()) {
    for (size_t i = 0; i < results.size(); ++i) {
      absl::StatusOr<Tensor> array = ResultArray(results[i]);
      if (!array.ok()) return Fail("run", array.status());
      absl::Status st = runtime::WriteNpy(absl::StrCat(out_dir, "/out", i, ".npy"), *array);
      if (!st.ok()) return Fail("run", st);
    }
  } else if (!args.Has("--quiet")) {
    for (size_t i = 0; i < results.size(); ++i) std::printf("out%zu: %s\n", i, results[i].DebugString().c_str());
  }
  if (!args.Has("--quiet")) {
    std::fprintf(stderr, "kiln run: %s: build %.3f s, run %.3f s, %zu result%s%s%s\n", s->entry.c_str(), s->build_s,
                 run_s, results.size(), results.size() == 1 ? "" : "s",
                 out_dir.empty() ? "" : absl::StrCat(" -> ", out_dir).c_str(),
                 s->device == nullptr ? "" : absl::StrCat(" (agent ", s->device->address(), ")").c_str());
  }
  return 0;
}

int RunBench(const Args& args) {
  if (args.positional().empty()) return Usage("bench", "expected a TVMScript file or an executable");
  profiling::TimeEvalOptions options;
  struct IntOption {
    const char* name;
    int* field;
    int min;
  };
  const IntOption int_options[] = {
      {"--number", &options.number, 1},
      {"--repeat", &options.repeat, 1},
      {"--min-repeat-ms", &options.min_repeat_ms, 0},
      {"--cooldown-interval-ms", &options.cooldown_interval_ms, 0},
      {"--repeats-to-cooldown", &options.repeats_to_cooldown, 1},
      {"--limit-zero-time-iterations", &options.limit_zero_time_iterations, 0},
  };
  for (const IntOption& o : int_options) {
    if (!args.Has(o.name)) continue;
    if (!absl::SimpleAtoi(args.Get(o.name), o.field) || *o.field < o.min) {
      return Usage("bench", absl::StrCat(o.name, " needs an integer >= ", o.min));
    }
  }
  if (args.Has("--cache-flush-bytes") &&
      (!absl::SimpleAtoi(args.Get("--cache-flush-bytes"), &options.cache_flush_bytes) || options.cache_flush_bytes < 0)) {
    return Usage("bench", "--cache-flush-bytes needs an integer >= 0");
  }
  if (std::string bad = CheckAgentOptions(args); !bad.empty()) return Usage("bench", bad);
  absl::StatusOr<Session> s = OpenSession(args, /*random_inputs=*/true);
  if (!s.ok()) return Fail("bench", s.status());
  // The stateful form, as a device farm times a model: inputs are set once and outside the timing.
  absl::StatusOr<std::vector<double>> results = s->TimeStateful(options);
  if (!results.ok()) return Fail("bench", results.status());
  profiling::BenchmarkSummary sum = profiling::Summarize(*results);
  if (args.Has("--json")) {
    std::vector<std::string> each;
    for (double r : *results) each.push_back(absl::StrFormat("%.9g", r));
    std::printf(
        "{\"entry\": \"%s\", \"mean_s\": %.9g, \"median_s\": %.9g, \"std_s\": %.9g, \"min_s\": %.9g, "
        "\"max_s\": %.9g, \"results_s\": [%s], \"number\": %d, \"repeat\": %d, \"build_s\": %.6g}\n",
        s->entry.c_str(), sum.mean, sum.median, sum.std, sum.min, sum.max, absl::StrJoin(each, ", ").c_str(),
        options.number, options.repeat, s->build_s);
  } else {
    std::printf("%s: mean %.6f ms, median %.6f ms, std %.6f ms, min %.6f ms, max %.6f ms (%d repeat%s of %d)\n",
                s->entry.c_str(), sum.mean * 1e3, sum.median * 1e3, sum.std * 1e3, sum.min * 1e3, sum.max * 1e3,
                options.repeat, options.repeat == 1 ? "" : "s", options.number);
  }
  return 0;
}

int RunInspect(const Args& args) {
  if (args.positional().size() != 1) return Usage("inspect", "expected one file");
  int views = args.Has("--text") + args.Has("--python") + args.Has("--stats");
  if (views > 1) return Usage("inspect", "choose one of --text, --python, --stats");
  const std::string& path = args.positional()[0];
  absl::StatusOr<vm::Executable> exec = driver::LoadOrBuildExecutable(path, args.Get("--target", "llvm"),
                                                                                 BuildOptionsFrom(args));
  if (!exec.ok()) return Fail("inspect", exec.status());
  std::string out = args.Has("--python") ? exec->AsPython() : args.Has("--stats") ? exec->Stats() : exec->AsText();
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace kiln::cli
