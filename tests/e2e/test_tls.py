"""A profile whose model endpoint speaks HTTPS: workers verify it against the CA bundle the
environment names, with the SSL contexts their sessions share (worker/sslshare)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import certifi
import pytest
import yaml

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.home import make_home
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.testing.tls import self_signed, server_context

from .conftest import StartHost


@pytest.fixture
def tls_llm(tmp_path: Path) -> Iterator[tuple[ScriptedLLM, Path]]:
    cert, key = self_signed(tmp_path)
    with ScriptedLLM(tls=server_context(cert, key)) as llm:
        yield llm, cert


@pytest.fixture
def home(tmp_path: Path, tls_llm: tuple[ScriptedLLM, Path]) -> Path:
    return make_home(tmp_path / "tls", tls_llm[0].base_url)


def run_text(host: Any, session_id: str) -> dict[str, Any]:
    run = host.request("run/start", {"message": "hi", "sessionId": session_id})
    done = host.wait_run_completed(run["runId"], timeout=120).params
    deltas = [
        n.params["text"] for n in host.run_notifications(run["runId"]) if n.method == "run/delta"
    ]
    return {"done": done, "text": "".join(deltas)}


def test_new_sessions_stream_from_an_https_endpoint_their_ca_bundle_trusts(
    start_host: StartHost, tls_llm: tuple[ScriptedLLM, Path]
) -> None:
    llm, cert = tls_llm
    assert llm.base_url.startswith("https://")
    host = start_host(env={"SSL_CERT_FILE": str(cert)})
    host.initialize()
    for i in range(3):  # the later sessions' clients use the contexts the first one built
        llm.enqueue(Reply.text([f"secure {i}"]))
        got = run_text(host, f"tls-{i}")
        assert got["done"]["status"] == "complete"
        assert got["text"] == f"secure {i}"
    assert len(llm.requests) >= 3


def test_an_https_endpoint_outside_the_ca_bundle_is_refused_and_the_run_ends_in_error(
    start_host: StartHost, tls_llm: tuple[ScriptedLLM, Path], home: Path
) -> None:
    llm, _ = tls_llm
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["agent"]["api_max_retries"] = 1  # one attempt: the refusal is not transient
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host(env={"SSL_CERT_FILE": certifi.where()})  # no room for our CA
    host.initialize()
    got = run_text(host, "tls-untrusted")
    assert got["done"]["status"] == "error"
    assert got["done"]["error"]["type"] == RunErrorType.AGENT_ERROR
    assert got["text"] == "" and llm.requests == []  # refused at the handshake
