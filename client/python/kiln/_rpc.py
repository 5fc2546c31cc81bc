"""One gRPC endpoint (kilnd or a kiln-agent): the channel, the bearer token, and calls that raise
kiln's exceptions instead of grpc.RpcError."""

from typing import Any, Callable, Iterator, Optional, Union

import grpc

from kiln.errors import from_grpc

PathOrBytes = Union[str, bytes, None]

# Tensors and executables are chunked on the wire, but inline results (Invoke, small executables)
# may exceed gRPC's 4 MiB default; the servers enforce their own limits.
_CHANNEL_OPTIONS = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]


def _read_pem(value: PathOrBytes) -> Optional[bytes]:
    if value is None or isinstance(value, bytes):
        return value
    with open(value, "rb") as f:
        return f.read()


class Endpoint:
    """A channel to one server plus the metadata every call carries."""

    def __init__(self, address: str, *, token: Optional[str] = None, tls_ca: PathOrBytes = None,
                 tls_cert: PathOrBytes = None, tls_key: PathOrBytes = None):
        self.address = address
        self.token = token
        self._tls = (tls_ca, tls_cert, tls_key)
        if tls_ca is not None or tls_cert is not None:
            creds = grpc.ssl_channel_credentials(root_certificates=_read_pem(tls_ca),
                                                 private_key=_read_pem(tls_key),
                                                 certificate_chain=_read_pem(tls_cert))
            self.channel = grpc.secure_channel(address, creds, options=_CHANNEL_OPTIONS)
        else:
            self.channel = grpc.insecure_channel(address, options=_CHANNEL_OPTIONS)
        self.metadata = (("authorization", "Bearer " + token),) if token else ()

    def sibling(self, address: str) -> "Endpoint":
        """An endpoint at another address with the same token and TLS settings."""
        tls_ca, tls_cert, tls_key = self._tls
        return Endpoint(address, token=self.token, tls_ca=tls_ca, tls_cert=tls_cert, tls_key=tls_key)

    def unary(self, method: str, fn: Callable, request: Any, timeout: Optional[float] = None) -> Any:
        """Calls a unary (or client-streaming) method; `request` may be an iterator of messages."""
        try:
            return fn(request, metadata=self.metadata, timeout=timeout)
        except grpc.RpcError as e:
            raise from_grpc(e, method) from None

    def stream(self, method: str, fn: Callable, request: Any, timeout: Optional[float] = None) -> Iterator[Any]:
        """Calls a server-streaming method and yields its messages."""
        try:
            for msg in fn(request, metadata=self.metadata, timeout=timeout):
                yield msg
        except grpc.RpcError as e:
            raise from_grpc(e, method) from None

    def close(self) -> None:
        self.channel.close()
