"""kiln: the Python client of kilnd (compile service) and kiln-agent (remote Relax VM).

    import kiln
    with kiln.connect() as sess:                 # no address: a local kilnd + kiln-agent
        exe = sess.compile("model.py", target="llvm")
        dev = sess.request_agent(key="cpu")
        vm = kiln.VirtualMachine(exe, dev)
        print(vm["main"](x, w))
"""

from kiln.device import RemoteDevice
from kiln.errors import CompileError, Diagnostic, KilnError, RpcError
from kiln.session import Executable, Session, connect
from kiln.vm import BenchmarkResult, CallRecord, ShapeTuple, VirtualMachine

__version__ = "0.1.0"

__all__ = [
    "BenchmarkResult", "CallRecord", "CompileError", "Diagnostic", "Executable", "KilnError", "RemoteDevice", "RpcError",
    "Session", "ShapeTuple", "VirtualMachine", "connect",
]
