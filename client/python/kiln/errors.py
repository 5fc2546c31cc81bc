"""kiln's exceptions: every failed call raises RpcError (CompileError for sources that do not
compile), carrying the server's status code, message and structured details."""

from dataclasses import dataclass
from typing import List, Optional

import grpc

from kiln._proto import compile_pb2

_STATUS_DETAILS_KEY = "grpc-status-details-bin"
_DIAGNOSTICS_TYPE = "type.googleapis.com/kiln.v1.Diagnostics"
_RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo"

_SEVERITY_NAMES = {
    compile_pb2.SEVERITY_ERROR: "error",
    compile_pb2.SEVERITY_WARNING: "warning",
    compile_pb2.SEVERITY_NOTE: "note",
}


class KilnError(Exception):
    """Base class of kiln's exceptions."""


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a source, as kilnd reports it (kiln.v1.Diagnostic)."""

    file: str
    line: int  # 1-based; 0 when the problem has no location
    col: int
    message: str
    excerpt: str = ""  # the source line and a caret under the span, as the CLI prints them
    severity: str = "error"  # "error", "warning" or "note"
    end_line: int = 0
    end_col: int = 0

    @classmethod
    def from_proto(cls, d: compile_pb2.Diagnostic) -> "Diagnostic":
        return cls(file=d.file, line=d.line, col=d.col, message=d.message, excerpt=d.excerpt,
                   severity=_SEVERITY_NAMES.get(d.severity, "error"), end_line=d.end_line, end_col=d.end_col)

    def __str__(self) -> str:
        # The CLI's rendering: "file:line:col: error: message", then the excerpt.
        where = self.file or "<input>"
        if self.line > 0:
            where += ":%d:%d" % (self.line, self.col)
        text = "%s: %s: %s" % (where, self.severity, self.message)
        if self.excerpt:
            text += "\n" + self.excerpt.rstrip("\n")
        return text


class RpcError(KilnError):
    """A failed call to kilnd or kiln-agent.

    Attributes:
      code: the grpc.StatusCode (e.g. grpc.StatusCode.UNAVAILABLE).
      message: the server's status message.
      method: the RPC that failed ("Compile", "Invoke", ...).
      retry_delay: seconds the server asked the client to wait before retrying (RetryInfo), or None.
    """

    def __init__(self, code: grpc.StatusCode, message: str, method: str = "",
                 retry_delay: Optional[float] = None):
        self.code = code
        self.message = message
        self.method = method
        self.retry_delay = retry_delay
        super().__init__(self._render())

    def _render(self) -> str:
        prefix = "%s: " % self.method if self.method else ""
        return "%s%s: %s" % (prefix, self.code.name, self.message)


class CompileError(RpcError):
    """A source that does not parse, verify or compile (INVALID_ARGUMENT with diagnostics).

    str() is the diagnostics as the CLI prints them ("file:line:col: error: msg" and the excerpt).
    """

    def __init__(self, message: str, diagnostics: List[Diagnostic], method: str = ""):
        self.diagnostics = list(diagnostics)
        super().__init__(grpc.StatusCode.INVALID_ARGUMENT, message, method)

    def _render(self) -> str:
        if not self.diagnostics:
            return super()._render()
        return "\n".join(str(d) for d in self.diagnostics)


def _status_details(err: grpc.Call) -> Optional[compile_pb2.RpcStatus]:
    for key, value in err.trailing_metadata() or ():
        if key == _STATUS_DETAILS_KEY:
            status = compile_pb2.RpcStatus()
            try:
                status.ParseFromString(value)
            except Exception:  # a malformed trailer must not hide the original error
                return None
            return status
    return None


def from_grpc(err: grpc.RpcError, method: str = "") -> RpcError:
    """The kiln exception for a grpc.RpcError raised by a stub call."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    message = err.details() if hasattr(err, "details") else str(err)
    message = message or ""
    status = _status_details(err) if hasattr(err, "trailing_metadata") else None
    diagnostics, retry_delay = [], None
    if status is not None:
        for any_msg in status.details:
            if any_msg.type_url == _DIAGNOSTICS_TYPE:
                diags = compile_pb2.Diagnostics()
                diags.ParseFromString(any_msg.value)
                diagnostics += [Diagnostic.from_proto(d) for d in diags.diagnostics]
            elif any_msg.type_url == _RETRY_INFO_TYPE:
                info = compile_pb2.RetryInfo()
                info.ParseFromString(any_msg.value)
                retry_delay = info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    if code == grpc.StatusCode.INVALID_ARGUMENT and diagnostics:
        return CompileError(message, diagnostics, method)
    return RpcError(code, message, method, retry_delay)
