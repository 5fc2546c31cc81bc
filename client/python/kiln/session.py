"""kiln.connect() and the Session: compiling on kilnd, its cache's executables, and leasing agents."""

import hashlib
import os
import threading
import weakref
from typing import Dict, Iterable, List, Optional, Union

import grpc

from kiln._proto import compile_pb2, compile_pb2_grpc, farm_pb2, farm_pb2_grpc
from kiln._rpc import Endpoint, PathOrBytes
from kiln.device import RemoteDevice
from kiln.errors import CompileError, Diagnostic, KilnError, RpcError
from kiln.local import AGENT_KEY, LocalServices
from kiln.script import Script

Source = Union[str, bytes, "os.PathLike[str]", Script]

_IR_MAGIC = b"KILNIR"
_CACHE_TIERS = {
    compile_pb2.CACHE_MISS: "miss",
    compile_pb2.CACHE_MEMORY: "memory",
    compile_pb2.CACHE_DISK: "disk",
    compile_pb2.CACHE_REDIS: "redis",
}
_FETCH_RETRIES = 3


def _module_fields(source: Source, filename: Optional[str]) -> Dict[str, object]:
    """The CompileRequest/CheckRequest/FormatRequest fields for a source text, a path, or IR bytes.

    A kiln.script definition sends its text and captured values; a str with a newline is source text; another str (no module fits on one line), or an
    os.PathLike, is a path read from disk (it becomes the diagnostics' filename); bytes starting with
    the KILNIR magic are a serialized IRModule, other bytes UTF-8 source.
    """
    if isinstance(source, Script):
        return source.request_fields()
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source):
        path = os.fspath(source)
        with open(path, "rb") as f:
            data = f.read()
        return _module_fields(data, filename or path)
    if isinstance(source, bytes):
        if source.startswith(_IR_MAGIC):
            return {"ir": source, "filename": filename or "<input>"}
        source = source.decode("utf-8")
    if not isinstance(source, str):
        raise TypeError("expected TVMScript text, a path or serialized IR bytes, got %s" % type(source).__name__)
    return {"source": source, "filename": filename or "<input>"}


class Executable:
    """A Relax VM executable compiled by kilnd, named by the SHA-256 `digest` of its bytes.

    Attributes:
      digest: hex SHA-256 of the executable (what agents load).
      cache_key: kilnd's cache key for the compile.
      cache: where kilnd found it: "miss" (compiled now), "memory", "disk" or "redis".
      target: the normalized target string.
      functions: the exported VM functions, in function-table order.
      size: bytes.
      warnings: non-fatal diagnostics of the compile.
      metadata: the full kiln.v1.ArtifactMetadata.
    """

    def __init__(self, session: "Session", response: compile_pb2.CompileResponse):
        self.session = session
        self.digest: str = response.digest
        self.cache_key: str = response.cache_key
        self.cache: str = _CACHE_TIERS.get(response.cache, "unknown")
        self.metadata = response.metadata
        self.target: str = response.metadata.target
        self.functions: List[str] = list(response.metadata.functions)
        self.size: int = response.metadata.size
        self.warnings: List[Diagnostic] = [Diagnostic.from_proto(d) for d in response.warnings]
        self._bytes: Optional[bytes] = response.executable or None
        self._lock = threading.Lock()

    @property
    def bytes(self) -> bytes:
        """The executable's bytes; fetched from kilnd (FetchArtifact) on first use if not inline."""
        with self._lock:
            if self._bytes is None:
                self._bytes = self.session.fetch_artifact(self.digest)
            return self._bytes

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the executable to `path` (a .kx file `kiln run` and kiln-agent load)."""
        data = self.bytes
        tmp = os.fspath(path) + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    def as_text(self) -> str:
        """The bytecode, one instruction per line, as TVM's Executable.as_text() prints it."""
        return self.session.inspect_artifact(self.digest, "text")

    def as_python(self) -> str:
        """An ExecBuilder program that rebuilds the executable (TVM's as_python())."""
        return self.session.inspect_artifact(self.digest, "python")

    def stats(self) -> str:
        """Constants, globals and their sizes (TVM's Executable.stats())."""
        return self.session.inspect_artifact(self.digest, "stats")

    def __repr__(self) -> str:
        return "<kiln.Executable %s target=%r functions=%r size=%d>" % (self.digest[:12], self.target,
                                                                         self.functions, self.size)


class Session:
    """A connection to kilnd. Use as a context manager, or call close().

    With the embedded default (kiln.connect() without an address) the session owns a local kilnd
    and kiln-agent, stopped by close() or at interpreter exit.
    """

    def __init__(self, endpoint: Endpoint, local: Optional[LocalServices] = None):
        self._endpoint = endpoint
        self._local = local
        self._compile = compile_pb2_grpc.CompileServiceStub(endpoint.channel)
        self._farm = farm_pb2_grpc.FarmServiceStub(endpoint.channel)
        self._closed = False
        # Stop the local daemons at exit even if the user never closes the session.
        self._finalizer = weakref.finalize(self, Session._cleanup, endpoint, local)

    @staticmethod
    def _cleanup(endpoint: Endpoint, local: Optional[LocalServices]) -> None:
        endpoint.close()
        if local is not None:
            local.stop()

    @property
    def address(self) -> str:
        """HOST:PORT of kilnd."""
        return self._endpoint.address

    @property
    def agent_address(self) -> Optional[str]:
        """HOST:PORT of the embedded default's kiln-agent (None for a remote kilnd)."""
        return self._local.agent_address if self._local else None

    # ------------------------------------------------------------------ compile service

    def compile(self, source_or_path: Source, target: str = "llvm", entries: Optional[Iterable[str]] = None, *,
                filename: Optional[str] = None, options: Optional[Dict[str, object]] = None,
                extra_vars: Optional[Dict[str, object]] = None, timeout: Optional[float] = None) -> Executable:
        """Compiles a module (TVMScript text, a path, or serialized IR bytes) for `target`.

        entries: the Relax functions to export (default: every public one). options: compiler options
        by name. extra_vars: Python values the source captures, by name ({"M": 128, "DT": "float16"}),
        sent as their repr(): the source is read as if it began with `M = 128` (a kiln.script
        definition sends the values it captured; these are added to them).
        Raises CompileError with the diagnostics when the source does not compile.
        """
        return Executable(self, self._module_call(
            "Compile", self._compile.Compile, compile_pb2.CompileRequest, source_or_path, filename, extra_vars,
            timeout, target=target, entries=list(entries or []),
            options={k: str(v) for k, v in (options or {}).items()}))

    def check(self, source_or_path: Source, *, filename: Optional[str] = None,
              extra_vars: Optional[Dict[str, object]] = None) -> List[Diagnostic]:
        """Parses and verifies a module; returns its warnings, raises CompileError on errors."""
        resp = self._module_call("Check", self._compile.Check, compile_pb2.CheckRequest, source_or_path, filename,
                                 extra_vars)
        return [Diagnostic.from_proto(d) for d in resp.warnings]

    def format(self, source_or_path: Source, *, filename: Optional[str] = None,
               extra_vars: Optional[Dict[str, object]] = None) -> str:
        """The canonical TVMScript text of a module (what `kiln fmt` prints); captured values appear
        substituted."""
        return self._module_call("Format", self._compile.Format, compile_pb2.FormatRequest, source_or_path, filename,
                                 extra_vars).text

    def _module_call(self, method: str, fn, request_type, source: Source, filename: Optional[str],
                     extra_vars: Optional[Dict[str, object]], timeout: Optional[float] = None, **fields):
        """A Compile/Check/Format call; a kiln.script definition's diagnostics come back in its file's lines."""
        module = _module_fields(source, filename)
        module["extra_vars"] = dict(module.get("extra_vars", {}), **{k: repr(v) for k, v in (extra_vars or {}).items()})
        try:
            return self._endpoint.unary(method, fn, request_type(**module, **fields), timeout)
        except CompileError as e:
            if isinstance(source, Script):
                raise source.map_error(e) from None
            raise

    def stat(self) -> compile_pb2.StatResponse:
        """kilnd's cache and pool statistics (needs the admin permission)."""
        return self._endpoint.unary("Stat", self._compile.Stat, compile_pb2.StatRequest())

    def list_targets(self) -> List[compile_pb2.TargetInfo]:
        """The targets kilnd compiles for (kind, default_target, description)."""
        return list(self._endpoint.unary("ListTargets", self._compile.ListTargets,
                                         compile_pb2.ListTargetsRequest()).targets)

    def fetch_artifact(self, digest: str) -> bytes:
        """The executable with this digest from kilnd's cache, streamed in chunks and verified.

        A stream that breaks is resumed from the bytes already received.
        """
        data = bytearray()
        attempts = 0
        while True:
            req = compile_pb2.FetchArtifactRequest(digest=digest, offset=len(data))
            total = None
            try:
                for chunk in self._endpoint.stream("FetchArtifact", self._compile.FetchArtifact, req):
                    if chunk.offset != len(data):
                        raise KilnError("FetchArtifact(%s): chunk at offset %d, expected %d" %
                                        (digest, chunk.offset, len(data)))
                    data += chunk.data
                    total = chunk.total_size
            except RpcError as e:
                attempts += 1
                if e.code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL) or attempts > _FETCH_RETRIES:
                    raise
                continue
            if total is not None and len(data) != total:
                raise KilnError("FetchArtifact(%s): got %d bytes of %d" % (digest, len(data), total))
            break
        got = hashlib.sha256(data).hexdigest()
        if got != digest:
            raise KilnError("FetchArtifact(%s): the bytes hash to %s" % (digest, got))
        return bytes(data)

    def inspect_artifact(self, digest: str, view: str = "text") -> str:
        """TVM's description of a cached executable: view "text", "python" or "stats"."""
        views = {"text": compile_pb2.InspectArtifactRequest.TEXT,
                 "python": compile_pb2.InspectArtifactRequest.PYTHON,
                 "stats": compile_pb2.InspectArtifactRequest.STATS}
        if view not in views:
            raise ValueError("view must be one of %s, got %r" % (sorted(views), view))
        req = compile_pb2.InspectArtifactRequest(digest=digest, view=views[view])
        return self._endpoint.unary("InspectArtifact", self._compile.InspectArtifact, req).text

    # ------------------------------------------------------------------ device farm

    def request_agent(self, key: str = AGENT_KEY, priority: int = 0, *, lease_seconds: int = 0,
                      timeout: Optional[float] = None) -> RemoteDevice:
        """Leases an agent of the farm serving `key` (higher priority first, FIFO among equals).

        Waits until one is free (up to `timeout` seconds; None: no limit), else raises RpcError
        DEADLINE_EXCEEDED. The lease is renewed in the background while the returned RemoteDevice is
        open; close() releases it. With the embedded default, whose agent serves key "cpu", that agent
        is used directly while the farm does not list it (a kilnd without a farm, or an agent that
        does not register itself).
        """
        if self._embedded_agent_unlisted(key):
            return self.connect_agent(self._local.agent_address)
        req = farm_pb2.RequestAgentRequest(key=key, priority=priority, lease_seconds=lease_seconds)
        lease = self._endpoint.unary("RequestAgent", self._farm.RequestAgent, req, timeout)
        return RemoteDevice(self._endpoint.sibling(lease.agent.address), agent=lease.agent, lease=lease,
                            farm=(self._endpoint, self._farm))

    def _embedded_agent_unlisted(self, key: str) -> bool:
        if key != AGENT_KEY or self._local is None or self._local.agent_address is None:
            return False
        try:
            agents = self.list_agents(key).agents
        except RpcError as e:
            if e.code == grpc.StatusCode.UNIMPLEMENTED:
                return True
            raise
        return all(a.address != self._local.agent_address for a in agents)

    def connect_agent(self, address: str, *, token: Optional[str] = None) -> RemoteDevice:
        """A device on the kiln-agent at HOST:PORT, without the farm (as `kiln run --agent`).

        The agent is called with this session's token and TLS settings unless `token` is given.
        """
        endpoint = self._endpoint.sibling(address)
        if token is not None:
            endpoint.close()
            endpoint = Endpoint(address, token=token)
        return RemoteDevice(endpoint)

    def list_agents(self, key: str = "") -> farm_pb2.ListAgentsResponse:
        """The farm's agents (of `key`, or all) and the requests waiting per key."""
        return self._endpoint.unary("ListAgents", self._farm.ListAgents, farm_pb2.ListAgentsRequest(key=key))

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Closes the channel and stops the embedded default's daemons. Idempotent."""
        self._finalizer()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<kiln.Session %s%s>" % (self.address, " (embedded)" if self._local else "")


def connect(address: Optional[str] = None, *, token: Optional[str] = None, tls_ca: PathOrBytes = None,
            tls_cert: PathOrBytes = None, tls_key: PathOrBytes = None, cache_dir: Optional[str] = None) -> Session:
    """Connects to kilnd at HOST:PORT, or starts the embedded default when `address` is None.

    token: the bearer token (default: $KILN_TOKEN). tls_ca: PEM CA bundle (path or bytes) to verify a
    TLS kilnd; tls_cert/tls_key: the client certificate for mutual TLS. With no address, a local kilnd
    (disk cache in `cache_dir`, else $KILN_CACHE_DIR, else kilnd's ~/.cache/kiln) and a kiln-agent serving key "cpu" are
    started, and stopped when the session closes or the interpreter exits.
    """
    if address is None:
        local = LocalServices(cache_dir=cache_dir)
        return Session(Endpoint(local.address, token=local.token), local)
    if token is None:
        token = os.environ.get("KILN_TOKEN") or None
    return Session(Endpoint(address, token=token, tls_ca=tls_ca, tls_cert=tls_cert, tls_key=tls_key))
