"""The embedded default: a kilnd (disk cache, loopback, a random token) and a kiln-agent serving
key "cpu", started for a Session made by kiln.connect() with no address, and stopped with it.

Binaries are looked up in $KILN_BIN_DIR, then on PATH, then in the bazel-bin of a kiln checkout (the
one holding this package, or one above the current directory).
"""

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from typing import List, Optional

from kiln.errors import KilnError

AGENT_KEY = "cpu"
_START_TIMEOUT_S = 60.0
_STOP_TIMEOUT_S = 10.0

# name -> its path under bazel-bin
_BINARIES = {"kilnd": "server/kilnd", "kiln-agent": "runtime/agent/kiln-agent"}


def _checkouts() -> List[str]:
    """Directories that look like kiln checkouts: above this file, then above the working dir."""
    found = []
    for start in (os.path.dirname(os.path.abspath(__file__)), os.getcwd()):
        d = start
        while True:
            if os.path.isfile(os.path.join(d, "WORKSPACE")) and d not in found:
                found.append(d)
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return found


def find_binary(name: str) -> Optional[str]:
    """The path of `name` ("kilnd" or "kiln-agent"), or None."""
    bin_dir = os.environ.get("KILN_BIN_DIR")
    if bin_dir:
        path = os.path.join(bin_dir, name)
        if os.access(path, os.X_OK):
            return path
    path = shutil.which(name)
    if path:
        return path
    for checkout in _checkouts():
        path = os.path.join(checkout, "bazel-bin", _BINARIES[name])
        if os.access(path, os.X_OK):
            return path
    return None


class _Process:
    """A child daemon that reports its port through --port-file; its stderr goes to a log file."""

    def __init__(self, name: str, argv: List[str], workdir: str):
        self.name = name
        self.port_file = os.path.join(workdir, name + ".port")
        self.log_path = os.path.join(workdir, name + ".log")
        with open(self.log_path, "wb") as log:
            # A session of its own: a Ctrl-C meant for the user's Python does not kill the daemon
            # under a live Session; atexit and Session.close stop it.
            self.proc = subprocess.Popen(argv + ["--port-file", self.port_file], stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, start_new_session=True)

    def log_tail(self, lines: int = 20) -> str:
        try:
            with open(self.log_path, "r", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def wait_port(self) -> int:
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise KilnError("%s exited with status %d before serving:\n%s" %
                                (self.name, self.proc.returncode, self.log_tail()))
            try:
                with open(self.port_file) as f:
                    text = f.read().strip()
                if text:
                    return int(text)
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        self.stop()
        raise KilnError("%s did not report a port within %d s:\n%s" % (self.name, _START_TIMEOUT_S, self.log_tail()))

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class LocalServices:
    """kilnd and (when its binary is found) a kiln-agent on loopback, sharing one random token."""

    def __init__(self, cache_dir: Optional[str] = None, start_agent: bool = True):
        kilnd = find_binary("kilnd")
        if kilnd is None:
            raise KilnError("kiln.connect(): no address given and no kilnd binary found in $KILN_BIN_DIR, "
                            "on PATH or in a checkout's bazel-bin (bazel build //server:kilnd //server:kilnd-worker)")
        self._workdir = tempfile.mkdtemp(prefix="kiln-local-")  # mode 0700: the token stays private
        self.token = secrets.token_hex(16)
        with open(os.path.join(self._workdir, "kilnd.tokens"), "w") as f:
            f.write("%s local compile,agent,admin\n" % self.token)
        with open(os.path.join(self._workdir, "token"), "w") as f:
            f.write(self.token + "\n")
        self._procs: List[_Process] = []
        self.agent_address: Optional[str] = None
        try:
            argv = [kilnd, "--listen", "127.0.0.1:0", "--token-file", os.path.join(self._workdir, "kilnd.tokens"),
                    "--log_requests=false", "--drain_seconds=2"]
            cache_dir = cache_dir or os.environ.get("KILN_CACHE_DIR")
            if cache_dir:
                argv += ["--cache-dir", cache_dir]
            kilnd_proc = _Process("kilnd", argv, self._workdir)
            self._procs.append(kilnd_proc)
            self.address = "127.0.0.1:%d" % kilnd_proc.wait_port()
            agent = find_binary("kiln-agent") if start_agent else None
            if agent is not None:
                token_file = os.path.join(self._workdir, "token")
                agent_proc = _Process("kiln-agent", [agent, "--listen", "127.0.0.1:0", "--kilnd", self.address,
                                                     "--key", AGENT_KEY, "--token-file", token_file,
                                                     "--kilnd-token-file", token_file], self._workdir)
                self._procs.append(agent_proc)
                self.agent_address = "127.0.0.1:%d" % agent_proc.wait_port()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stops the agent, then kilnd, and removes the token files. Idempotent."""
        for proc in reversed(self._procs):
            proc.stop()
        self._procs = []
        shutil.rmtree(self._workdir, ignore_errors=True)
