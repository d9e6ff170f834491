"""Test helpers for hermes-stdio (scripted LLM server, fixtures)."""
