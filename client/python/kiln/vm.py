"""VirtualMachine: TVM's Relax VM API over a kiln-agent session.

Values cross the wire as kiln.v1.Value (proto/agent.proto): numpy arrays (and anything with
__dlpack__, through numpy.from_dlpack) become tensors, Python bool/int/float/str become scalars,
tuples and lists become tuples, ShapeTuple a shape. Results come back as numpy arrays, Python
scalars, tuples and ShapeTuple. Tensors above one chunk are streamed by set_input and get_outputs;
invoke sends them inline.
"""

import statistics
import weakref
from typing import Any, Callable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import grpc
import numpy as np

from kiln._proto import agent_pb2
from kiln.device import RemoteDevice
from kiln.errors import KilnError, RpcError

_CHUNK_BYTES = 1 << 20

# numpy dtype kind -> DLPack type code
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_BOOL = 0, 1, 2, 4, 6
_KIND_TO_CODE = {"i": _DL_INT, "u": _DL_UINT, "f": _DL_FLOAT, "b": _DL_BOOL}
_CODE_TO_KIND = {_DL_INT: "i", _DL_UINT: "u", _DL_FLOAT: "f"}


class ShapeTuple(tuple):
    """A Relax shape value (R.Shape): a tuple of ints, distinct from a tuple of int scalars."""

    def __repr__(self) -> str:
        return "ShapeTuple(%s)" % (list(self),)


# ---------------------------------------------------------------- value conversion

def _to_numpy(value: Any) -> Optional[np.ndarray]:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "__dlpack__"):
        return np.from_dlpack(value)
    return None


def _dtype_to_proto(dtype: np.dtype) -> agent_pb2.DataType:
    if dtype.kind not in _KIND_TO_CODE:
        raise TypeError("kiln: numpy dtype %s has no DLPack equivalent" % dtype)
    return agent_pb2.DataType(code=_KIND_TO_CODE[dtype.kind], bits=8 * dtype.itemsize, lanes=1)


def _dtype_from_proto(dt: agent_pb2.DataType) -> np.dtype:
    if dt.lanes not in (0, 1):
        raise KilnError("kiln: vector dtype (lanes=%d) has no numpy equivalent" % dt.lanes)
    if dt.code == _DL_BOOL:
        return np.dtype(np.bool_)
    if dt.code == _DL_BFLOAT and dt.bits == 16:
        return np.dtype("<u2")  # numpy has no bfloat16: the raw bits
    if dt.code not in _CODE_TO_KIND:
        raise KilnError("kiln: DLPack type code %d has no numpy equivalent" % dt.code)
    return np.dtype("<%s%d" % (_CODE_TO_KIND[dt.code], dt.bits // 8))


def _dtype_name(dt: agent_pb2.DataType) -> str:
    names = {_DL_INT: "int", _DL_UINT: "uint", _DL_FLOAT: "float", _DL_BFLOAT: "bfloat"}
    if dt.code == _DL_BOOL:
        return "bool"
    name = "%s%d" % (names.get(dt.code, "code%d_" % dt.code), dt.bits)
    return name + ("x%d" % dt.lanes if dt.lanes > 1 else "")


def _little_endian_contiguous(array: np.ndarray) -> np.ndarray:
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    # Not np.ascontiguousarray: it turns a 0-d array into a 1-d one.
    return array if array.flags.c_contiguous else array.copy(order="C")


class _Encoder:
    """Builds kiln.v1.Value messages; with `stream_above` set, tensors larger than that many bytes are
    marked `streamed` and kept (depth-first) for TensorChunk messages."""

    def __init__(self, stream_above: Optional[int] = None):
        self.stream_above = stream_above
        self.streamed: List[np.ndarray] = []

    def value(self, value: Any, out: agent_pb2.Value) -> None:
        array = _to_numpy(value)
        if array is not None:
            array = _little_endian_contiguous(array)
            t = out.tensor
            t.dtype.CopyFrom(_dtype_to_proto(array.dtype))
            t.shape.extend(array.shape)
            if self.stream_above is not None and array.nbytes > self.stream_above:
                t.streamed = True
                self.streamed.append(array)
            else:
                t.data = array.tobytes()
        elif isinstance(value, (bool, np.bool_)):
            out.bool_value = bool(value)
        elif isinstance(value, (int, np.integer)):
            out.int_value = int(value)
        elif isinstance(value, (float, np.floating)):
            out.float_value = float(value)
        elif isinstance(value, str):
            out.string_value = value
        elif isinstance(value, ShapeTuple):
            out.shape.dims.extend(int(d) for d in value)
        elif isinstance(value, np.dtype):
            out.dtype.CopyFrom(_dtype_to_proto(value))
        elif isinstance(value, (tuple, list)):
            fields = out.tuple.fields
            out.tuple.SetInParent()  # an empty tuple is a tuple, not None
            for v in value:
                self.value(v, fields.add())
        elif value is None:
            pass
        else:
            raise TypeError("kiln: cannot pass a %s to the VM (numpy arrays, __dlpack__ objects, bool, int, "
                            "float, str, tuple/list, ShapeTuple)" % type(value).__name__)

    def chunks(self) -> Iterator[agent_pb2.TensorChunk]:
        for index, array in enumerate(self.streamed):
            data = memoryview(array.reshape(-1).view(np.uint8))
            for offset in range(0, len(data), _CHUNK_BYTES):
                yield agent_pb2.TensorChunk(tensor=index, offset=offset, data=bytes(data[offset:offset + _CHUNK_BYTES]))


def _decode(value: agent_pb2.Value, streamed: Optional[List[np.ndarray]] = None) -> Any:
    """The Python value of a kiln.v1.Value. Streamed tensors are allocated and appended to `streamed`
    (depth-first) for the chunks to fill."""
    kind = value.WhichOneof("kind")
    if kind == "tensor":
        t = value.tensor
        dtype = _dtype_from_proto(t.dtype)
        if t.streamed:
            if streamed is None:
                raise KilnError("kiln: a streamed tensor in a unary answer")
            array = np.empty(tuple(t.shape), dtype)
            streamed.append(array)
            return array
        return np.frombuffer(t.data, dtype).reshape(tuple(t.shape)).copy()
    if kind == "int_value":
        return value.int_value
    if kind == "float_value":
        return value.float_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "string_value":
        return value.string_value
    if kind == "shape":
        return ShapeTuple(value.shape.dims)
    if kind == "tuple":
        return tuple(_decode(f, streamed) for f in value.tuple.fields)
    if kind == "dtype":
        return _dtype_name(value.dtype)
    return None


# ---------------------------------------------------------------- time_evaluator

class BenchmarkResult:
    """TVM's BenchmarkResult: seconds per call for each repeat, with their statistics."""

    def __init__(self, results: Sequence[float]):
        self.results: Tuple[float, ...] = tuple(results)
        self.mean: float = statistics.fmean(self.results) if self.results else 0.0
        self.median: float = statistics.median(self.results) if self.results else 0.0
        self.min: float = min(self.results) if self.results else 0.0
        self.max: float = max(self.results) if self.results else 0.0
        self.std: float = statistics.pstdev(self.results) if self.results else 0.0

    def __repr__(self) -> str:
        return ("BenchmarkResult(min=%g, mean=%g, median=%g, max=%g, std=%g, results=%r)" %
                (self.min, self.mean, self.median, self.max, self.std, self.results))

    def __str__(self) -> str:
        return ("Execution time summary:\n"
                " mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)  \n"
                " %9.4f    %9.4f    %9.4f    %9.4f    %9.4f   " %
                tuple(1000 * v for v in (self.mean, self.median, self.max, self.min, self.std)))


# ---------------------------------------------------------------- the VM

class CallRecord(NamedTuple):
    """One Call of the VM that the session's instrument recorded (see VirtualMachine.set_instrument)."""
    callee: str             # a kernel's symbol, a builtin ("vm.builtin.alloc_tensor"), a VM function
    elapsed_ns: int         # wall time, callees included (0 when skipped or failed)
    depth: int              # 0 for Calls of the invoked function, 1 inside a VM function it called, ...
    args: Tuple[str, ...]   # per argument: "float32[4, 8]", "int 3", "shape (4, 8)", ...
    skipped: bool


class VirtualMachine:
    """A Relax VM running `exe` in a session on a kiln-agent, with TVM's API.

        vm = kiln.VirtualMachine(exe, device)
        out = vm["main"](x, w)                     # invoke
        vm.set_input("main", x, w)                 # stateful: inputs stay on the agent
        vm.invoke_stateful("main")
        out = vm.get_outputs("main")
        vm.time_evaluator("main", number=10, repeat=3)(x, w).mean

    The agent session's lease is renewed by the device's background thread while the VM is open;
    close() (or `with`, or garbage collection) ends the session and frees its memory on the agent.
    """

    def __init__(self, exe: Any, device: RemoteDevice, *, memory_limit_bytes: int = 0,
                 allocator: str = "pooled", num_threads: int = 0, lease_seconds: int = 0):
        self.executable = exe
        self.device = device
        self._endpoint = device.endpoint
        self._stub = device.stub
        allocators = {"pooled": agent_pb2.ALLOCATOR_POOLED, "naive": agent_pb2.ALLOCATOR_NAIVE}
        if allocator not in allocators:
            raise ValueError("allocator must be one of %s, got %r" % (sorted(allocators), allocator))
        resp = self._endpoint.unary("OpenSession", self._stub.OpenSession, agent_pb2.OpenSessionRequest(
            device=device.device, device_id=device.device_id, allocator=allocators[allocator],
            memory_limit_bytes=memory_limit_bytes, lease_seconds=lease_seconds, num_threads=num_threads))
        self.session_id: str = resp.session_id
        # What the instrument recorded during the last invoke / vm["f"](...) / invoke_stateful.
        self.last_trace: List[CallRecord] = []
        self.last_trace_dropped: int = 0
        self.lease_seconds: int = resp.lease_seconds
        self.memory_limit_bytes: int = resp.memory_limit_bytes
        self._finalizer = weakref.finalize(self, VirtualMachine._close_session, device, self.session_id)
        device._track_session(self.session_id, resp.lease_seconds)
        try:
            self.functions: List[str] = self._load(exe)
        except BaseException:
            self.close()
            raise

    def _load(self, exe: Any) -> List[str]:
        """Loads by digest (the agent takes it from its cache or kilnd); uploads the bytes when the
        agent cannot get it that way (e.g. an agent of another kilnd)."""
        first = agent_pb2.LoadExecutableRequest(session_id=self.session_id, digest=exe.digest)
        try:
            resp = self._endpoint.unary("LoadExecutable", self._stub.LoadExecutable, iter([first]))
        except RpcError as e:
            if e.code not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE):
                raise
            resp = self._endpoint.unary("LoadExecutable", self._stub.LoadExecutable, self._upload(exe.bytes))
        return list(resp.functions)

    def _upload(self, data: bytes) -> Iterator[agent_pb2.LoadExecutableRequest]:
        for offset in range(0, len(data), _CHUNK_BYTES):
            req = agent_pb2.LoadExecutableRequest(offset=offset, data=data[offset:offset + _CHUNK_BYTES])
            if offset == 0:
                req.session_id, req.digest, req.total_size = self.session_id, self.executable.digest, len(data)
            yield req

    # -------------------------------------------------------------- TVM's API

    def __getitem__(self, func_name: str) -> Callable[..., Any]:
        """vm["f"](*args): calls f. For a VM (Relax) function, its result; for a PrimFunc entry, the
        list of all its buffer arguments after the call (the user's arrays are never modified)."""
        if func_name in self.functions:
            return lambda *args: self.invoke(func_name, *args)
        return lambda *args: self._invoke_prim_func(func_name, args)

    def invoke(self, func_name: str, *args: Any) -> Any:
        """Calls `func_name` with inline arguments and returns its result."""
        req = agent_pb2.InvokeRequest(session_id=self.session_id, function=func_name)
        enc = _Encoder()
        for a in args:
            enc.value(a, req.args.add())
        resp = self._endpoint.unary("Invoke", self._stub.Invoke, req)
        self._keep_trace(resp.trace)
        return _decode(resp.result)

    def _invoke_prim_func(self, func_name: str, args: Sequence[Any]) -> List[Any]:
        result = self.invoke(func_name, *args)
        # A kernel writes into its (destination-passing) buffers; the agent answers them after the call.
        if not isinstance(result, tuple) or len(result) != len(args):
            raise KilnError("vm[%r]: the agent did not return the %d buffer arguments of the PrimFunc (got %r)" %
                            (func_name, len(args), type(result).__name__))
        return list(result)

    def set_input(self, func_name: str, *args: Any, **kwargs: Any) -> None:
        """TVM's set_input: stores the arguments of `func_name` on the agent (keyword arguments by
        parameter name). Large tensors are streamed in chunks."""
        header = agent_pb2.SetInputHeader(session_id=self.session_id, function=func_name)
        enc = _Encoder(stream_above=_CHUNK_BYTES)
        for a in args:
            enc.value(a, header.args.add().value)
        for name, a in kwargs.items():
            named = header.args.add(name=name)
            enc.value(a, named.value)

        def requests() -> Iterator[agent_pb2.SetInputRequest]:
            yield agent_pb2.SetInputRequest(header=header)
            for chunk in enc.chunks():
                yield agent_pb2.SetInputRequest(chunk=chunk)

        self._endpoint.unary("SetInput", self._stub.SetInput, requests())

    def invoke_stateful(self, func_name: str) -> None:
        """TVM's invoke_stateful: runs `func_name` on its last set_input; the result stays on the agent."""
        resp = self._endpoint.unary("InvokeStateful", self._stub.InvokeStateful,
                                    agent_pb2.InvokeStatefulRequest(session_id=self.session_id, function=func_name))
        self._keep_trace(resp.trace)

    def set_instrument(self, mode: Any = "trace", skip: Sequence[str] = (), max_records: int = 0) -> None:
        """TVM's set_instrument, run by the agent (a Python callback cannot run across RPC).

        mode="trace" records every Call of the VM (callee, wall time, argument types, depth) during
        each invoke / invoke_stateful; the records are then in `vm.last_trace` (a list of
        CallRecord; the first `max_records`, default 10000, with `vm.last_trace_dropped` counting
        the rest). `skip` names callees that do not run (TVM's SKIP_RUN), under any mode.
        mode="off" with no skip removes the instrument. time_evaluator skips but never records.
        """
        if callable(mode):
            raise TypeError("set_instrument: the VM runs on a kiln-agent, where a Python function cannot run; "
                            "use mode=\"trace\" (and skip=[...]) and read vm.last_trace")
        modes = {"off": agent_pb2.INSTRUMENT_OFF, "trace": agent_pb2.INSTRUMENT_TRACE}
        if mode not in modes:
            raise ValueError("set_instrument: mode must be one of %s, got %r" % (sorted(modes), mode))
        if isinstance(skip, str):
            skip = [skip]
        self._endpoint.unary("SetInstrument", self._stub.SetInstrument, agent_pb2.SetInstrumentRequest(
            session_id=self.session_id, mode=modes[mode], skip=list(skip), max_records=max_records))

    def _keep_trace(self, trace: agent_pb2.InstrumentTrace) -> None:
        self.last_trace = [CallRecord(r.callee, r.elapsed_ns, r.depth, tuple(r.args), r.skipped)
                           for r in trace.records]
        self.last_trace_dropped = trace.dropped

    def get_outputs(self, func_name: str) -> Any:
        """TVM's get_outputs: the result of the last invoke_stateful of `func_name` (a numpy array, a
        tuple, or a scalar), its tensors streamed in chunks."""
        req = agent_pb2.GetOutputsRequest(session_id=self.session_id, function=func_name, chunk_bytes=_CHUNK_BYTES)
        streamed: List[np.ndarray] = []
        filled: List[int] = []
        result = None
        for msg in self._endpoint.stream("GetOutputs", self._stub.GetOutputs, req):
            if msg.HasField("header"):
                result = _decode(msg.header.result, streamed)
                filled = [0] * len(streamed)
                continue
            chunk = msg.chunk
            if chunk.tensor >= len(streamed) or chunk.offset != filled[chunk.tensor]:
                raise KilnError("get_outputs(%r): unexpected chunk (tensor %d, offset %d)" %
                                (func_name, chunk.tensor, chunk.offset))
            view = streamed[chunk.tensor].reshape(-1).view(np.uint8)
            view[chunk.offset:chunk.offset + len(chunk.data)] = np.frombuffer(chunk.data, np.uint8)
            filled[chunk.tensor] += len(chunk.data)
        for k, array in enumerate(streamed):
            if filled[k] != array.nbytes:
                raise KilnError("get_outputs(%r): tensor %d got %d of %d bytes" %
                                (func_name, k, filled[k], array.nbytes))
        return result

    def save_function(self, func_name: str, saved_name: str, *args: Any, include_return: bool = True) -> None:
        """TVM's save_function: binds `args` to `func_name` under `saved_name` (vm[saved_name]() calls it)."""
        req = agent_pb2.SaveFunctionRequest(session_id=self.session_id, function=func_name, saved_name=saved_name,
                                            include_return=include_return)
        enc = _Encoder()
        for a in args:
            enc.value(a, req.args.add())
        self._endpoint.unary("SaveFunction", self._stub.SaveFunction, req)
        if saved_name not in self.functions:
            self.functions.append(saved_name)

    def time_evaluator(self, func_name: str, dev: Optional[RemoteDevice] = None, number: int = 10,
                       repeat: int = 1, min_repeat_ms: int = 0, cooldown_interval_ms: int = 0,
                       repeats_to_cooldown: int = 1, limit_zero_time_iterations: int = 100,
                       cache_flush_bytes: int = 0, stateful: bool = False) -> Callable[..., BenchmarkResult]:
        """TVM's time_evaluator: a function that times `func_name` on the agent and returns a
        BenchmarkResult (seconds per call: .results per repeat, .mean, .median, .min, .max, .std).

        Called with arguments, it times invoke(func_name, *args). With stateful=True (or TVM's
        spelling, time_evaluator("invoke_stateful", dev)("main")) it times invoke_stateful on the
        function's last set_input. `dev` is accepted for TVM compatibility and must be this VM's device.
        """
        if dev is not None and dev is not self.device:
            raise ValueError("time_evaluator: dev must be the VM's device")

        def evaluate(*args: Any) -> BenchmarkResult:
            name, is_stateful, call_args = func_name, stateful, args
            if func_name == "invoke_stateful":
                if len(args) != 1 or not isinstance(args[0], str):
                    raise TypeError('time_evaluator("invoke_stateful") takes the function name')
                name, is_stateful, call_args = args[0], True, ()
            req = agent_pb2.TimeEvaluatorRequest(
                session_id=self.session_id, function=name, stateful=is_stateful, number=number, repeat=repeat,
                min_repeat_ms=min_repeat_ms, limit_zero_time_iterations=limit_zero_time_iterations,
                cooldown_interval_ms=cooldown_interval_ms, repeats_to_cooldown=repeats_to_cooldown,
                cache_flush_bytes=cache_flush_bytes)
            enc = _Encoder()
            for a in call_args:
                enc.value(a, req.args.add())
            resp = self._endpoint.unary("TimeEvaluator", self._stub.TimeEvaluator, req)
            return BenchmarkResult(resp.results)

        return evaluate

    # -------------------------------------------------------------- lifetime

    @staticmethod
    def _close_session(device: RemoteDevice, session_id: str) -> None:
        device._untrack_session(session_id)
        try:
            device.endpoint.unary("CloseSession", device.stub.CloseSession,
                                  agent_pb2.CloseSessionRequest(session_id=session_id), timeout=10)
        except (RpcError, ValueError):
            pass  # the agent or its channel is gone: the session dies with its lease

    def close(self) -> None:
        """Closes the agent session (its memory is freed). Idempotent."""
        self._finalizer()

    def __enter__(self) -> "VirtualMachine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<kiln.VirtualMachine %s on %r>" % (self.executable.digest[:12], self.device)
