"""Every test runs with the JSON codec the processes use (orjson, loaded at start);
tests/wire runs the standard library's too."""

from hermes_stdio.wire import load_fast

load_fast()
