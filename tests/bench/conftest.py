def pytest_configure(config):  # type: ignore[no-untyped-def]
    config.addinivalue_line("markers", "bench_smoke: fast smoke test of `hermes-stdio bench`")
