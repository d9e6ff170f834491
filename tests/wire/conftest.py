"""Wire tests run under both JSON codecs: the standard library's and orjson."""

from __future__ import annotations

import pytest

from hermes_stdio.wire import codec


@pytest.fixture(params=["stdlib", "orjson"])
def codec_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(codec, "_orjson", codec._orjson)  # put back as it was afterwards
    if request.param == "orjson":
        assert codec.load_fast(), "orjson is a dependency of hermes-stdio"
    else:
        monkeypatch.setattr(codec, "_orjson", None)
    kind: str = request.param
    return kind
