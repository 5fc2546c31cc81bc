"""Fixtures: one embedded-default session (a real kilnd and kiln-agent, started by kiln.connect())
for the whole run, and its agent as a device."""

import pytest

import kiln


def pytest_addoption(parser):
    parser.addoption("--heavy", action="store_true",
                     help="run every program of shared/corpus/relax (default: a light subset)")


@pytest.fixture(scope="session")
def sess(tmp_path_factory):
    with kiln.connect(cache_dir=str(tmp_path_factory.mktemp("kiln-cache"))) as s:
        yield s


@pytest.fixture(scope="session")
def device(sess):
    assert sess.agent_address is not None, "kiln-agent not found next to kilnd ($KILN_BIN_DIR)"
    # Addressed directly: the VM tests hold no farm lease (farm_test covers leases), so a farm that
    # lists the embedded agent with capacity 1 still serves farm_test's request for key "cpu".
    with sess.connect_agent(sess.agent_address) as dev:
        yield dev
