#include "client/cli/remote_commands.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "client/cli/summary.h"
#include "client/cpp/client.h"
#include "compiler/ir/serialize.h"
#include "runtime/read_file.h"
#include "runtime/vm/executable.h"

namespace kiln::cli {
namespace {

int Usage(const char* cmd, const std::string& message) {
  std::fprintf(stderr, "kiln %s: %s (see `kiln %s --help`)\n", cmd, message.c_str(), cmd);
  return 2;
}

absl::StatusOr<std::string> ReadBytes(const std::string& path) { return runtime::ReadRegularFile(path); }

absl::Status WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// Options that only the local compiler understands.
int RejectLocalOnly(const char* cmd, const Args& args, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (args.Has(n)) return Usage(cmd, absl::StrCat(n, " is not available with --remote"));
  }
  return 0;
}

// The first line of a token file, trimmed; an empty one is an error.
absl::StatusOr<std::string> ReadToken(const std::string& path) {
  absl::StatusOr<std::string> token = ReadBytes(path);
  if (!token.ok()) return token.status();
  absl::string_view t = *token;
  t = absl::StripAsciiWhitespace(t.substr(0, t.find('\n')));
  if (t.empty()) return absl::InvalidArgumentError(absl::StrCat("empty token in ", path));
  return std::string(t);
}

absl::StatusOr<std::unique_ptr<Client>> Connect(const Args& args) {
  ClientOptions o;
  o.address = args.Get("--remote");
  if (args.Has("--token-file")) {
    absl::StatusOr<std::string> token = ReadToken(args.Get("--token-file"));
    if (!token.ok()) return token.status();
    o.token = *token;
  }
  o.root_cert_path = args.Get("--tls-ca");
  o.client_cert_path = args.Get("--tls-cert");
  o.client_key_path = args.Get("--tls-key");
  return Client::Create(o);
}

// A failed call: the diagnostics when there are some, else one line naming the server.
void ReportError(const char* cmd, const std::string& address, const absl::Status& st) {
  std::string text = RenderError(st);
  if (DiagnosticsOf(st).empty()) text = absl::StrCat("kiln ", cmd, ": ", address, ": ", text);
  std::fputs(text.c_str(), stderr);
}

// Fills the module fields every request shares: serialized IR by its magic, else TVMScript text,
// and the --define template values as extra_vars.
template <typename Request>
void SetModule(const Args& args, const std::string& path, std::string bytes, Request* r) {
  if (ir::LooksLikeSerializedIR(bytes)) {
    r->set_ir(std::move(bytes));
  } else {
    r->set_source(std::move(bytes));
  }
  r->set_filename(path);
  for (const auto& [name, value] : Defines(args)) (*r->mutable_extra_vars())[name] = value;
}

// "dir/foo.py" -> "foo.kx", as the local build names its output.
std::string DefaultOutputPath(const std::string& input) {
  std::string base = input.substr(input.find_last_of('/') + 1);
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base + ".kx";
}

}  // namespace

bool WantsAgent(const Args& args) { return args.Has("--agent") || args.Has("--farm"); }

std::string CheckAgentOptions(const Args& args) {
  if (args.Has("--agent") && args.Has("--farm")) return "--agent and --farm are two ways to choose the agent: give one";
  if (args.Has("--farm") && !args.Has("--remote")) return "--farm KEY leases from a kilnd: give --remote HOST:PORT too";
  if (args.Has("--remote") && !WantsAgent(args)) {
    return "--remote runs on an agent: give --farm KEY or --agent HOST:PORT";
  }
  if (args.Has("--priority") && !args.Has("--farm")) return "--priority applies to --farm";
  int priority = 0;
  if (args.Has("--priority") && !absl::SimpleAtoi(args.Get("--priority"), &priority)) {
    return "--priority needs an integer";
  }
  return "";
}

absl::StatusOr<RemoteExecutable> CompileOnKilnd(const Args& args, const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadBytes(path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<std::unique_ptr<Client>> client = Connect(args);
  if (!client.ok()) return client.status();
  v1::CompileRequest request;
  SetModule(args, path, std::move(*bytes), &request);
  request.set_target(args.Get("--target", "llvm"));
  request.set_checked(args.Has("--checked"));
  absl::StatusOr<CompileResult> result = (*client)->Compile(request);
  if (!result.ok()) {
    // Diagnostics as the local compiler prints them; other failures name the server.
    std::string text = RenderError(result.status());
    absl::StripTrailingAsciiWhitespace(&text);
    if (DiagnosticsOf(result.status()).empty()) text = absl::StrCat(args.Get("--remote"), ": ", text);
    return absl::Status(result.status().code(), text);
  }
  for (const v1::Diagnostic& w : result->response.warnings()) std::fputs(RenderDiagnostic(w).c_str(), stderr);
  return RemoteExecutable{std::move(result->executable), result->response.digest()};
}

absl::StatusOr<std::unique_ptr<RemoteDevice>> OpenAgent(const Args& args, int threads) {
  RemoteDeviceOptions options;
  if (args.Has("--agent-token-file")) {
    absl::StatusOr<std::string> token = ReadToken(args.Get("--agent-token-file"));
    if (!token.ok()) return token.status();
    options.token = *token;
  }
  options.session.set_num_threads(threads);
  if (args.Has("--agent")) return RemoteDevice::Open(args.Get("--agent"), std::move(options));
  absl::StatusOr<std::unique_ptr<Client>> client = Connect(args);
  if (!client.ok()) return client.status();
  int priority = 0;
  if (args.Has("--priority")) absl::SimpleAtoi(args.Get("--priority"), &priority);  // CheckAgentOptions parsed it
  return RemoteDevice::Lease(**client, args.Get("--farm"), priority, std::move(options));
}

int RunRemoteBuild(const Args& args) {
  if (int rc = RejectLocalOnly("build", args, {"--name", "--emit-c", "--emit-llvm", "--print-after", "--verify-each"})) {
    return rc;
  }
  if (args.positional().size() != 1) return Usage("build", "expected one input file");
  const std::string& path = args.positional()[0];
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> bytes = ReadBytes(path);
  if (!bytes.ok()) {
    std::fprintf(stderr, "kiln build: %s\n", std::string(bytes.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<Client>> client = Connect(args);
  if (!client.ok()) return Usage("build", std::string(client.status().message()));
  v1::CompileRequest request;
  SetModule(args, path, std::move(*bytes), &request);
  request.set_target(args.Get("--target", "llvm"));
  for (const std::string& e : args.GetAll("--entry")) request.add_entries(e);
  request.set_checked(args.Has("--checked"));
  absl::StatusOr<CompileResult> result = (*client)->Compile(request);
  if (!result.ok()) {
    ReportError("build", args.Get("--remote"), result.status());
    return 1;
  }
  for (const v1::Diagnostic& w : result->response.warnings()) std::fputs(RenderDiagnostic(w).c_str(), stderr);
  // The summary reads the executable as `kiln run` would: a server that sent something else fails here.
  absl::StatusOr<vm::Executable> exec = vm::Executable::Deserialize(result->executable);
  if (!exec.ok()) {
    std::fprintf(stderr, "kiln build: the server's executable does not load: %s\n", std::string(exec.status().message()).c_str());
    return 1;
  }
  std::string out = args.Get("-o", DefaultOutputPath(path));
  absl::Status st = WriteBytes(out, result->executable);
  if (!st.ok()) {
    std::fprintf(stderr, "kiln build: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "kiln build: %s -> %s [%s]: executable with %s, %zu bytes in %.2f s (remote %s, cache: %s)\n",
               path.c_str(), out.c_str(), request.target().c_str(), ExecutableSummary(*exec).c_str(),
               result->executable.size(), seconds, args.Get("--remote").c_str(), CacheTierName(result->response.cache()));
  return 0;
}

int RunRemoteCheck(const Args& args) {
  if (int rc = RejectLocalOnly("check", args, {"--name"})) return rc;
  if (args.positional().empty()) {
    std::fprintf(stderr, "kiln check: no input files\n");
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Client>> client = Connect(args);
  if (!client.ok()) return Usage("check", std::string(client.status().message()));
  int bad = 0;
  for (const std::string& path : args.positional()) {
    absl::StatusOr<std::string> bytes = ReadBytes(path);
    if (!bytes.ok()) {
      std::fprintf(stderr, "kiln check: %s\n", std::string(bytes.status().message()).c_str());
      ++bad;
      continue;
    }
    v1::CheckRequest request;
    SetModule(args, path, std::move(*bytes), &request);
    absl::StatusOr<v1::CheckResponse> r = (*client)->Check(request);
    if (!r.ok()) {
      ReportError("check", args.Get("--remote"), r.status());
      ++bad;
      continue;
    }
    for (const v1::Diagnostic& w : r->warnings()) std::fputs(RenderDiagnostic(w).c_str(), stderr);
  }
  return bad == 0 ? 0 : 1;
}

int RunRemoteFmt(const Args& args) {
  if (int rc = RejectLocalOnly("fmt", args, {"--name", "--function"})) return rc;
  if (args.positional().size() != 1) {
    std::fprintf(stderr, "kiln fmt: expected one input file\n");
    return 2;
  }
  const std::string& path = args.positional()[0];
  absl::StatusOr<std::string> bytes = ReadBytes(path);
  if (!bytes.ok()) {
    std::fprintf(stderr, "kiln fmt: %s\n", std::string(bytes.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<Client>> client = Connect(args);
  if (!client.ok()) return Usage("fmt", std::string(client.status().message()));
  v1::FormatRequest request;
  SetModule(args, path, std::move(*bytes), &request);
  absl::StatusOr<v1::FormatResponse> r = (*client)->Format(request);
  if (!r.ok()) {
    ReportError("fmt", args.Get("--remote"), r.status());
    return 1;
  }
  if (!args.Has("-i")) {
    std::fwrite(r->text().data(), 1, r->text().size(), stdout);
    return 0;
  }
  absl::Status st = WriteBytes(path, r->text());
  if (!st.ok()) {
    std::fprintf(stderr, "kiln fmt: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace kiln::cli
