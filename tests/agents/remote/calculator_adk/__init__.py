"""The calculator example as a Google ADK agent whose model is scripted (no LLM): served over A2A and ADK's HTTP API
by the remote-agent tests, and run in-process for the reference scores."""

from . import agent

__all__ = ["agent"]
