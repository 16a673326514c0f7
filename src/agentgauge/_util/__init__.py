"""Infrastructure with no domain meaning: atomic file writes, secret masking, fast ids, lazy exports, the call gate,
the retry policy of outgoing HTTP calls and the ``[tool.agentgauge]`` table of ``pyproject.toml``.

The lowest layer above :mod:`agentgauge.errors`: nothing here imports the rest of agentgauge. Import a module by its
path (``from agentgauge._util.fileio import atomic_write``); this ``__init__`` imports nothing, so start-up pays only
for what it uses.
"""
