"""The worker process: one Hermes profile's sessions and runs.

The only package that imports hermes-agent (in ``adapter``).
"""
