"""kiln.connect() to a kilnd serving mutual TLS: tls_ca, tls_cert and tls_key (paths or PEM bytes)."""

import subprocess
import time

import grpc
import pytest

import kiln
from kiln import local


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True)


@pytest.fixture(scope="module")
def tls_kilnd(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=kiln-test-ca",
            "-keyout", str(d / "ca.key"), "-out", str(d / "ca.pem"))
    for who in ("server", "client"):
        p = str(d / who)
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", p + ".key",
                "-out", p + ".csr")
        with open(p + ".ext", "w") as f:
            f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        openssl("x509", "-req", "-days", "1", "-in", p + ".csr", "-CA", str(d / "ca.pem"), "-CAkey", str(d / "ca.key"),
                "-CAcreateserial", "-extfile", p + ".ext", "-out", p + ".pem")
    port_file = d / "port"
    proc = subprocess.Popen([local.find_binary("kilnd"), "--listen", "127.0.0.1:0", "--port-file", str(port_file),
                             "--cache-dir", str(d / "cache"), "--tls-cert", str(d / "server.pem"),
                             "--tls-key", str(d / "server.key"), "--tls-client-ca", str(d / "ca.pem"),
                             "--drain_seconds=1"], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proc.poll() is None and time.monotonic() < deadline, "kilnd did not start"
            time.sleep(0.02)
        yield "localhost:%s" % port_file.read_text().strip(), d
    finally:
        proc.terminate()
        proc.wait()


def test_mutual_tls(tls_kilnd):
    address, d = tls_kilnd
    with kiln.connect(address, tls_ca=str(d / "ca.pem"), tls_cert=str(d / "client.pem"),
                      tls_key=(d / "client.key").read_bytes()) as sess:
        assert "llvm" in [t.kind for t in sess.list_targets()]


def test_without_client_certificate_is_refused(tls_kilnd):
    address, d = tls_kilnd
    with kiln.connect(address, tls_ca=str(d / "ca.pem")) as sess:
        with pytest.raises(kiln.RpcError) as info:
            sess.list_targets()
    assert info.value.code == grpc.StatusCode.UNAVAILABLE
