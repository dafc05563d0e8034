"""check_address fails in seconds, with the address and the reason, where ray.init would hang.

(That it accepts a live cluster is checked in test_multinode.py, against a real one.)
"""

from __future__ import annotations

import http.server
import socket
import threading
import time

import pytest

from paralib.cluster.errors import ClusterAddressError
from paralib.cluster.local import free_port
from paralib.cluster.validate import check_address


@pytest.fixture
def tcp_server():
    """Something that accepts connections and answers with junk (not a Ray GCS)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.sendall(b"hello, not grpc\r\n")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


@pytest.fixture
def http_server():
    """A web server that is not a Ray dashboard (404 everywhere)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("form", ["{host}:{port}", "ray://{host}:{port}", "http://{host}:{port}"])
def test_nobody_listening_fails_at_once(form):
    address = form.format(host="127.0.0.1", port=free_port())
    t0 = time.monotonic()
    with pytest.raises(ClusterAddressError, match="cannot connect to 127.0.0.1:.*refused") as err:
        check_address(address, timeout_s=5)
    assert time.monotonic() - t0 < 15  # fails fast: no retry loop (Ray's client waits ~40 s)
    assert repr(address) in str(err.value)


def test_a_server_that_is_not_ray_fails_within_the_timeout(tcp_server):
    t0 = time.monotonic()
    with pytest.raises(ClusterAddressError, match="as a Ray GCS"):
        check_address(f"127.0.0.1:{tcp_server}", timeout_s=3)
    assert time.monotonic() - t0 < 15  # the 3 s timeout holds; Ray's own client waits ~40 s


def test_a_web_server_that_is_not_a_dashboard(http_server):
    with pytest.raises(ClusterAddressError, match="did not answer as a Ray dashboard"):
        check_address(f"http://127.0.0.1:{http_server}", timeout_s=3)


def test_auto_without_a_cluster(monkeypatch, tmp_path):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))  # no ray_current_cluster file there
    with pytest.raises(ClusterAddressError, match="'auto': RAY_ADDRESS is not set"):
        check_address("auto", timeout_s=1)
    port = free_port()
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    with pytest.raises(ClusterAddressError, match=f"cannot connect to 127.0.0.1:{port}"):
        check_address("auto", timeout_s=1)


@pytest.mark.parametrize(("address", "words"), [
    ("", "no Ray address given"),
    ("ftp://127.0.0.1:21", "is not host:port"),
    ("127.0.0.1:notaport", "invalid port"),
])
def test_malformed_addresses(address, words):
    with pytest.raises(ClusterAddressError, match=words):
        check_address(address, timeout_s=1)
    with pytest.raises(ValueError, match="timeout_s must be positive"):
        check_address("127.0.0.1:6379", timeout_s=0)
