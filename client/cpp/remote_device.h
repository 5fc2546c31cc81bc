// kiln::RemoteDevice: a session on a kiln-agent (proto/agent.proto), the C++ counterpart of the
// Python client's RemoteDevice + VirtualMachine. It opens the session on an agent given its
// address, or leases an agent from kilnd's device farm by key and priority (proto/farm.proto),
// and keeps the session (and the farm lease) alive from a background thread while it is open, so
// that a measurement longer than any lease never loses its session.
//
// The calls are TVM's VirtualMachine methods over runtime/agent/agent_client.h's AgentClient:
// LoadExecutable (by digest: the agent fetches it from kilnd; or uploaded), SetInput, Invoke,
// InvokeStateful, GetOutputs, SaveFunction, TimeEvaluator, SetInstrument. Errors are absl::Status
// with the agent's code and message; an agent that cannot be reached is UNAVAILABLE, the message
// reading "kiln-agent at HOST:PORT: UNAVAILABLE: <gRPC's reason>".
//
// Calls may come from several threads (the agent runs one call of a session at a time).
#ifndef KILN_CLIENT_CPP_REMOTE_DEVICE_H_
#define KILN_CLIENT_CPP_REMOTE_DEVICE_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/cpp/client.h"
#include "proto/agent.pb.h"
#include "proto/farm.grpc.pb.h"
#include "runtime/agent/agent_client.h"
#include "runtime/vm/value.h"

namespace kiln {

struct RemoteDeviceOptions {
  // The agent's bearer token (kiln-agent --token-file); empty = none.
  std::string token;
  // Device, allocator, memory limit, lease and threads of the session (session-id aside).
  v1::OpenSessionRequest session;
  // How often the keep-alive renews the session and the farm lease; zero = a third of the shorter
  // of the two.
  absl::Duration keep_alive_interval = absl::ZeroDuration();
  // Lease: the farm lease's length (0 = kilnd's default) and how long to wait for a free agent.
  uint32_t farm_lease_seconds = 0;
  absl::Duration farm_wait = absl::Seconds(60);
};

class RemoteDevice {
 public:
  // A session on the agent at `address` ("host:port").
  static absl::StatusOr<std::unique_ptr<RemoteDevice>> Open(const std::string& address,
                                                            RemoteDeviceOptions options = {});
  // A session on an agent of `key` leased from `kilnd`'s farm: the highest priority first, FIFO
  // within a priority. NOT_FOUND when kilnd has no agent of that key at all (the message lists the
  // keys it has); DEADLINE_EXCEEDED when none became free within options.farm_wait.
  static absl::StatusOr<std::unique_ptr<RemoteDevice>> Lease(const Client& kilnd, const std::string& key,
                                                             int priority, RemoteDeviceOptions options = {});

  ~RemoteDevice();  // Close()
  RemoteDevice(const RemoteDevice&) = delete;
  RemoteDevice& operator=(const RemoteDevice&) = delete;

  const std::string& address() const { return address_; }
  const std::string& session_id() const { return session_id_; }
  // The farm lease (empty lease_id when the device was opened by address).
  const v1::AgentLease& lease() const { return lease_; }

  // By digest: the agent's cache, else kilnd (which must hold it: a Compile put it there).
  absl::StatusOr<v1::LoadExecutableResponse> LoadExecutable(const std::string& digest);
  // Uploads the executable's bytes (their digest is computed here).
  absl::StatusOr<v1::LoadExecutableResponse> UploadExecutable(const std::string& bytes);

  absl::Status SetInput(const std::string& function, const std::vector<vm::Value>& args);
  // `trace`, when given, receives what the session's instrument recorded during the call.
  absl::StatusOr<vm::Value> Invoke(const std::string& function, const std::vector<vm::Value>& args,
                                   v1::InstrumentTrace* trace = nullptr);
  absl::Status InvokeStateful(const std::string& function, v1::InstrumentTrace* trace = nullptr);
  absl::StatusOr<vm::Value> GetOutputs(const std::string& function);
  absl::Status SaveFunction(const std::string& function, const std::string& saved_name,
                            const std::vector<vm::Value>& args, bool include_return);
  // `params`: function, stateful and TVM's parameters (its session_id and args are set here).
  absl::StatusOr<v1::TimeEvaluatorResponse> TimeEvaluator(v1::TimeEvaluatorRequest params,
                                                          const std::vector<vm::Value>& args = {});
  // The agent-side instrument (see proto/agent.proto's SetInstrumentRequest).
  absl::Status SetInstrument(v1::InstrumentMode mode, const std::vector<std::string>& skip = {},
                             uint32_t max_records = 0);

  // Stops the keep-alive, closes the session and releases the farm lease. Idempotent; the first
  // failure is returned.
  absl::Status Close();
  // The last keep-alive failure (OK while every renewal succeeded).
  absl::Status keep_alive_status() const;

 private:
  RemoteDevice(std::string address, RemoteDeviceOptions options);
  absl::Status OpenSession();
  void StartKeepAlive();
  void KeepAliveLoop(absl::Duration interval);
  // The agent's status with the address named when it could not be reached.
  absl::Status Named(absl::Status s) const;

  const std::string address_;
  const RemoteDeviceOptions options_;
  agent::AgentClient agent_;
  std::string session_id_;
  uint32_t session_lease_seconds_ = 0;
  // The farm, for a leased device.
  v1::AgentLease lease_;
  std::unique_ptr<v1::FarmService::Stub> farm_;
  std::string farm_token_;

  mutable absl::Mutex mu_;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status keep_alive_status_ ABSL_GUARDED_BY(mu_);
  std::thread keeper_;
};

}  // namespace kiln

#endif  // KILN_CLIENT_CPP_REMOTE_DEVICE_H_
