"""hermes-stdio: run Hermes agents behind one stdio JSON-RPC child process."""

__version__ = "0.1.0"
