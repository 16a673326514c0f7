"""OTLP/gRPC for ``agentgauge serve --otlp-grpc-port PORT`` (the ``otlp`` extra: ``grpcio`` and
``opentelemetry-proto``): the trace and logs services, feeding the same store as OTLP/HTTP.

The same rules as the HTTP receiver: it binds the server's ``--host``; with a token, calls must carry
``authorization: Bearer TOKEN`` metadata (``OTEL_EXPORTER_OTLP_HEADERS``); without one, calls from another machine
are refused unless ``--allow-remote-writes``; messages are limited to ``--max-upload-mb`` (decompressed).
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ._safety import is_loopback

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI

    from ..traces import Signal
    from ._config import ServerConfig
    from ._live_hub import LiveHub

__all__ = ["OTLP_GRPC_HINT", "grpc_lifespan", "start_grpc_receiver"]

OTLP_GRPC_HINT = "--otlp-grpc-port needs grpcio and opentelemetry-proto: pip install 'agentgauge[otlp]'"


def _peer_host(peer: str) -> str:
    """The address of a gRPC peer string (``ipv4:127.0.0.1:5000``, ``ipv6:[::1]:5000``, ``unix:...``)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return "localhost" if kind == "unix" else rest


def _refusal(config: ServerConfig, context: Any) -> tuple[Any, str] | None:
    """``(status code, message)`` when the call may not store data, else ``None``."""
    import grpc  # type: ignore[import-untyped]

    if config.token is not None:
        given = dict(context.invocation_metadata()).get("authorization", "")
        scheme, _, value = str(given).strip().partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), config.token.encode()):
            return grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token"
        return None
    if not config.allow_remote_writes and not is_loopback(_peer_host(context.peer())):
        return grpc.StatusCode.PERMISSION_DENIED, "remote OTLP export refused: give the server a --token"
    return None


_SERVICES = {
    "traces": "opentelemetry.proto.collector.trace.v1.TraceService",
    "logs": "opentelemetry.proto.collector.logs.v1.LogsService",
}


def _handler(hub: LiveHub, config: ServerConfig, signal: Signal, response: bytes) -> Callable[..., Any]:
    """The ``Export`` method of one service. It takes the request's bytes (no deserializer is registered): a message
    that does not decode is the caller's error, ``INVALID_ARGUMENT`` naming why, as is what the store refuses."""
    source = f"/{_SERVICES[signal]}/Export"

    def export(request: bytes, context: Any) -> bytes:
        import grpc

        from ..traces import proto_request_document

        refused = _refusal(config, context)
        if refused is not None:
            context.abort(*refused)
        try:
            document = proto_request_document(request, signal=signal, source=source)
            hub.store.receive(document, signal, source)
        except InputError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except OSError as exc:  # a full disk: nothing was stored, the exporter retries
            context.abort(grpc.StatusCode.UNAVAILABLE, f"the request could not be stored: {exc.strerror or exc}")
        return response

    return export


def start_grpc_receiver(hub: LiveHub, config: ServerConfig, port: int) -> Any:
    """Start an OTLP/gRPC server on ``config.host:port`` (a thread pool of its own); returns it (``.stop()``).
    ``port`` 0 picks a free port: the bound one is the server's ``bound_port`` attribute."""
    try:
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    except ImportError:
        raise InputError(OTLP_GRPC_HINT) from None
    limit = config.max_upload_bytes
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="otlp-grpc"),
        options=[("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", 1024)],
    )
    answers = {
        "traces": trace_service_pb2.ExportTraceServiceResponse().SerializeToString(),
        "logs": logs_service_pb2.ExportLogsServiceResponse().SerializeToString(),
    }
    for signal, service in _SERVICES.items():
        method = grpc.unary_unary_rpc_method_handler(_handler(hub, config, signal, answers[signal]))  # type: ignore[arg-type]
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, {"Export": method}),))
    host = f"[{config.host}]" if ":" in config.host else config.host
    bound = server.add_insecure_port(f"{host}:{port}")
    if not bound:
        raise InputError(f"--otlp-grpc-port {port}: cannot listen on {host}:{port}")
    server.bound_port = bound
    server.start()
    return server


def grpc_lifespan(hub: LiveHub, config: ServerConfig, port: int) -> Callable[[FastAPI], Any]:
    """A FastAPI lifespan that runs the gRPC receiver while the app runs (started before the first request,
    stopped when the server stops)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        server = start_grpc_receiver(hub, config, port)
        app.state.agentgauge_grpc = server
        try:
            yield
        finally:
            server.stop(grace=2)

    return lifespan
