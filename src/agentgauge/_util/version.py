"""agentgauge's version, in the lowest layer so that any module (a judge's User-Agent, the server's ``/version``) can
name it without importing the ``agentgauge`` package itself. ``pyproject.toml`` holds the same number."""

VERSION = "0.1.0"
