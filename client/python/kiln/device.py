"""RemoteDevice: a kiln-agent (leased from kilnd's farm, or addressed directly) and the background
thread that keeps its leases alive: the farm lease and the agent sessions of its VirtualMachines."""

import threading
import weakref
from typing import Any, Optional, Tuple

from kiln._proto import agent_pb2, agent_pb2_grpc, farm_pb2
from kiln._rpc import Endpoint
from kiln.errors import RpcError

# Renew when this fraction of a lease is left; a few tries fit before it runs out.
_RENEW_FRACTION = 1.0 / 3.0
_MIN_RENEW_S = 0.2


class RemoteDevice:
    """A device on a kiln-agent. Pass it to kiln.VirtualMachine. Close it (or use `with`) to
    release its lease; it is also released when the object is collected or at exit.

    Attributes:
      address: HOST:PORT of the agent.
      agent: the farm's kiln.v1.AgentInfo (None for a directly addressed agent).
      lease_id: the farm lease ("" for a directly addressed agent).
      device: the device kind sessions open ("cpu").
    """

    def __init__(self, endpoint: Endpoint, *, agent: Optional[Any] = None, lease: Optional[Any] = None,
                 farm: Optional[Tuple[Endpoint, Any]] = None, device: str = "cpu", device_id: int = 0):
        self._endpoint = endpoint
        self.address = endpoint.address
        self.agent = agent
        self.lease_id = lease.lease_id if lease is not None else ""
        self.device = device
        self.device_id = device_id
        self.stub = agent_pb2_grpc.AgentServiceStub(endpoint.channel)
        self._keeper = _Keeper(endpoint, self.stub, farm, lease)
        self._finalizer = weakref.finalize(self, _Keeper.stop, self._keeper)

    @property
    def endpoint(self) -> Endpoint:
        return self._endpoint

    def _track_session(self, session_id: str, lease_seconds: float) -> None:
        self._keeper.add_session(session_id, lease_seconds)

    def _untrack_session(self, session_id: str) -> None:
        self._keeper.remove_session(session_id)

    def close(self) -> None:
        """Releases the farm lease and closes the channel. Idempotent."""
        self._finalizer()

    def __enter__(self) -> "RemoteDevice":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        key = " key=%r" % self.agent.key if self.agent is not None else ""
        return "<kiln.RemoteDevice %s(%d) at %s%s>" % (self.device, self.device_id, self.address, key)


class _Keeper:
    """Renews the farm lease and the agent sessions' leases before they run out, on one thread.

    Holds no reference to the RemoteDevice, so an unreferenced device is collected (and its lease
    released) normally.
    """

    def __init__(self, endpoint: Endpoint, stub: Any, farm: Optional[Tuple[Endpoint, Any]], lease: Optional[Any]):
        self._endpoint = endpoint
        self._stub = stub
        self._farm = farm
        self._lease_id = lease.lease_id if lease is not None else ""
        self._lease_s = (lease.lease.seconds + lease.lease.nanos / 1e9) if lease is not None else 0.0
        self._sessions = {}  # session_id -> lease seconds
        self._cv = threading.Condition()
        self._stopped = False
        self.last_error: Optional[Exception] = None  # an RpcError, or ValueError for a closed channel
        self._thread = threading.Thread(target=self._run, name="kiln-lease-keeper", daemon=True)
        self._thread.start()

    def add_session(self, session_id: str, lease_seconds: float) -> None:
        with self._cv:
            self._sessions[session_id] = lease_seconds
            self._cv.notify()

    def remove_session(self, session_id: str) -> None:
        with self._cv:
            self._sessions.pop(session_id, None)

    def _period(self) -> float:
        leases = list(self._sessions.values()) + ([self._lease_s] if self._lease_id else [])
        return max(_MIN_RENEW_S, min(leases) * _RENEW_FRACTION) if leases else 3600.0

    def _run(self) -> None:
        while True:
            with self._cv:
                self._cv.wait(self._period())
                if self._stopped:
                    return
                sessions = list(self._sessions)
            # A failed renewal is kept in last_error and retried next period: a transient failure must
            # not end a long measurement, and the next call on an expired session reports NOT_FOUND.
            if self._lease_id:
                endpoint, farm_stub = self._farm
                try:
                    lease = endpoint.unary("RenewLease", farm_stub.RenewLease,
                                           farm_pb2.RenewLeaseRequest(lease_id=self._lease_id), timeout=10)
                    self._lease_s = lease.lease.seconds + lease.lease.nanos / 1e9 or self._lease_s
                except (RpcError, ValueError) as e:
                    # ValueError: the kiln.Session that leased the device was closed (its channel
                    # with it) while the device is still open; the lease then runs out on its own.
                    self.last_error = e
            for sid in sessions:
                try:
                    self._endpoint.unary("KeepAlive", self._stub.KeepAlive,
                                         agent_pb2.KeepAliveRequest(session_id=sid), timeout=10)
                except (RpcError, ValueError) as e:
                    self.last_error = e

    def stop(self) -> None:
        with self._cv:
            if self._stopped:
                return
            self._stopped = True
            self._cv.notify()
        self._thread.join(timeout=15)
        if self._lease_id:
            endpoint, farm_stub = self._farm
            try:
                endpoint.unary("ReleaseLease", farm_stub.ReleaseLease,
                               farm_pb2.ReleaseLeaseRequest(lease_id=self._lease_id), timeout=10)
            except (RpcError, ValueError):
                # kilnd gone, the lease already expired, or (at exit, in a finalizer) the session's
                # channel to kilnd already closed: nothing left to release.
                pass
        self._endpoint.close()
