"""Session.request_agent through kilnd's farm: leases, their renewal, release and priorities.

The embedded default's real kiln-agent is registered here under keys of the test's own (the test
heartbeats for it), so each test has agents no other test leases.
"""

import threading
import time
import uuid

import grpc
import numpy as np
import pytest

import kiln
from kiln._proto import farm_pb2, farm_pb2_grpc
from helpers import assert_matches, list_programs, relax_corpus


class Registration:
    """The agent at `address` registered under `key`, heartbeating until stop()."""

    def __init__(self, sess, address, key, capacity=1):
        self._stub = farm_pb2_grpc.FarmServiceStub(sess._endpoint.channel)
        self._metadata = sess._endpoint.metadata
        resp = self._stub.RegisterAgent(farm_pb2.RegisterAgentRequest(key=key, address=address, device="cpu",
                                                                      capacity=capacity), metadata=self._metadata)
        self.agent_id = resp.agent_id
        self._interval = resp.heartbeat_interval.seconds + resp.heartbeat_interval.nanos / 1e9
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)
        self._thread.start()

    def _beat(self):
        while not self._stop.wait(self._interval / 2):
            self._stub.Heartbeat(farm_pb2.HeartbeatRequest(agent_id=self.agent_id), metadata=self._metadata)

    def stop(self):
        self._stop.set()
        self._thread.join()


@pytest.fixture
def key(sess):
    k = "py-test-%s" % uuid.uuid4().hex[:8]
    reg = Registration(sess, sess.agent_address, k)
    yield k
    reg.stop()


def leased(sess, key):
    return sum(a.leased for a in sess.list_agents(key).agents)


def test_lease_is_renewed_and_released(sess, key):
    _, path, ref = next(iter(list_programs(relax_corpus(), "001_add_multiply")))
    inputs = ref["make_inputs"](np.random.default_rng(0))
    with sess.request_agent(key, lease_seconds=1) as dev:
        assert dev.lease_id and dev.agent.key == key and dev.address == sess.agent_address
        assert leased(sess, key) == 1
        time.sleep(3)  # three leases long: only the background renewal keeps it
        assert leased(sess, key) == 1
        with kiln.VirtualMachine(sess.compile(path), dev) as vm:
            assert_matches(vm["main"](*inputs), ref["expected"](inputs), ref)
    assert leased(sess, key) == 0


def test_busy_key_times_out(sess, key):
    with sess.request_agent(key):
        with pytest.raises(kiln.RpcError) as info:
            sess.request_agent(key, timeout=0.5)
    assert info.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_higher_priority_is_served_first(sess, key):
    first = sess.request_agent(key)
    order = []

    def request(priority):
        dev = sess.request_agent(key, priority=priority, timeout=30)
        order.append(priority)
        dev.close()

    low = threading.Thread(target=request, args=(0,))
    low.start()
    while sess.list_agents(key).waiting.get(key, 0) < 1:
        time.sleep(0.01)
    high = threading.Thread(target=request, args=(5,))
    high.start()
    while sess.list_agents(key).waiting.get(key, 0) < 2:
        time.sleep(0.01)
    first.close()
    low.join()
    high.join()
    assert order == [5, 0]


def test_embedded_default_serves_key_cpu(sess):
    with sess.request_agent("cpu", timeout=30) as dev:
        assert dev.address == sess.agent_address


def test_embedded_agent_listed_in_the_farm_is_leased(sess):
    # As once the agent registers itself: request_agent("cpu") then goes through the farm.
    reg = Registration(sess, sess.agent_address, "cpu")
    try:
        with sess.request_agent("cpu", timeout=30) as dev:
            assert dev.lease_id and dev.agent.key == "cpu" and dev.address == sess.agent_address
    finally:
        reg.stop()
