"""``a2a+http(s)://HOST:PORT[/PATH]``: an agent reached over the A2A protocol with the official ``a2a-sdk`` client.

The agent card is read once (``PATH/.well-known/agent-card.json``, else the older ``agent.json``; a URL ending in
``.json`` is the card itself), the client streams when the card offers streaming, and every eval case keeps one A2A
context so a multi-turn conversation continues. What the agent sends is folded by :class:`A2aTurn`.
``a2a`` is imported only when such an agent is loaded (extra ``agentgauge[remote]``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
import weakref
from collections import OrderedDict
from typing import Any, TypeVar

import httpx

from ..._util.retry import parse_retry_after, retryable_status
from ...errors import AgentError, InputError
from .._types import AgentOutput, AgentRequest
from ._a2a_convert import TERMINAL_STATES, A2aTurn
from ._http import RemoteEndpoint
from ._httpx_bridge import AnswerTooLarge
from ._origin import OriginRefused, public_url
from ._response import CONNECT_ERRORS, TRANSPORT_ERRORS, describe_error
from ._settings import RemoteAgentSettings

__all__ = ["A2aAgent"]

_CARD_PATHS = (".well-known/agent-card.json", ".well-known/agent.json")
_USER_ID_HEADER = "X-User-ID"  # where trpc-agent-go's A2A server reads the user (others ignore it)
_INTERRUPTED = frozenset({"input_required", "auth_required"})
_CONNECTION_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
E = TypeVar("E", bound=BaseException)
# Contexts remembered: far more than the cases in flight at any --parallelism, so a long run stays bounded.
_MAX_CONTEXTS = 65536


def _require_a2a() -> None:
    try:
        import a2a.client  # noqa: F401
    except ImportError:
        raise InputError("an a2a+http agent needs a2a-sdk: pip install 'agentgauge[remote]'") from None


def _describe_httpx(error: httpx.HTTPError) -> str:
    """An error of a2a-sdk's ``httpx`` client in the words the other schemes use."""
    if isinstance(error, httpx.ReadTimeout):
        return "no answer within the read timeout"
    if isinstance(error, httpx.ConnectTimeout):
        return "connection timed out"
    if isinstance(error, httpx.ConnectError):
        return f"cannot connect ({error or 'connection refused'})"
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return f"the connection broke ({error or type(error).__name__})"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _cause(error: BaseException, kind: type[E] | tuple[type[E], ...]) -> E | None:
    """The first exception of ``kind`` in ``error``'s chain (a2a-sdk wraps what its HTTP client raised)."""
    seen: BaseException | None = error
    hops = 0
    while seen is not None and hops < 64:
        if isinstance(seen, kind):
            return seen
        seen, hops = seen.__cause__ or seen.__context__, hops + 1
    return None


def _http_cause(error: BaseException) -> httpx.HTTPError | None:
    return _cause(error, httpx.HTTPError)


class A2aAgent:
    """An :class:`~agentgauge.agents.Agent` that sends each user turn to an A2A agent as one message.

    ``spec`` is the ``a2a+http(s)://`` URL; ``settings`` the shared connection settings (headers, timeouts,
    retries, TLS). The case's ``userId`` travels in the ``X-User-ID`` header (trpc-agent-go's A2A server reads
    it); session state and context messages have no place in A2A and are not sent.
    """

    agentgauge_native = True
    """Marks agents built by this package, which :func:`as_agent` returns unchanged."""

    remote = True
    """The agent runs elsewhere: eval-set tool mocks cannot reach its tools."""

    def __init__(self, spec: str, settings: RemoteAgentSettings | None = None) -> None:
        _require_a2a()
        scheme, _, rest = spec.strip().partition("://")
        self.spec = spec
        self.url = f"{scheme.lower().partition('+')[2]}://{rest}".rstrip("/")
        self.endpoint = RemoteEndpoint(scheme.lower(), self.url, settings)
        self._card: Any = None
        self._rpc_url = self.url
        self._card_url = self.url
        self._state: tuple[weakref.ref[asyncio.AbstractEventLoop], asyncio.Lock, list[Any]] | None = None
        # eval session id -> (A2A context id, task id awaiting input), least recently used first
        self._contexts: OrderedDict[str, tuple[str | None, str | None]] = OrderedDict()

    def __repr__(self) -> str:
        return f"A2aAgent({self.endpoint.scheme_label}://{self.url.partition('://')[2]!r})"

    async def _client(self) -> Any:
        """The SDK client of the running event loop (the card is read once, on first use)."""
        loop = asyncio.get_running_loop()
        if self._state is None or self._state[0]() is not loop:
            self._state = (weakref.ref(loop), asyncio.Lock(), [])
        _, lock, holder = self._state
        async with lock:  # P cases starting together read the card once
            if not holder:
                if self._card is None:
                    self._card = await self._read_card()
                holder.append(self._create_client(self._card))
        return holder[0]

    async def _read_card(self) -> Any:
        from a2a.client.card_resolver import parse_agent_card

        paths = [self.url] if self.url.endswith(".json") else list(_CARD_PATHS)
        for path in paths:
            response = await self.endpoint.request("GET", path, accept=(404,))
            if response.status_code == 404:
                continue
            self._card_url = path
            try:
                return parse_agent_card(response.json())
            except Exception as exc:
                raise self.endpoint.failure(
                    "GET", path, status=response.status_code, body=response.content, error=f"not an agent card: {exc}"
                ) from None
        others = "".join(f" nor at {public_url(self.endpoint.resolve(path))}" for path in paths[1:])
        raise self.endpoint.failure("GET", paths[0], status=404, error=f"no agent card there{others}")

    def _interface_url(self, card: Any) -> str:
        """The URL of the card's first JSON-RPC or HTTP+JSON interface, allowed by the origin policy."""
        from a2a.utils.constants import TransportProtocol

        bindings = (TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON)
        interfaces = [i for i in card.supported_interfaces if i.protocol_binding in bindings]
        if not interfaces:
            offered = ", ".join(i.protocol_binding for i in card.supported_interfaces) or "none"
            raise self.endpoint.failure(
                "GET", self._card_url, error=f"the agent card offers no JSON-RPC or HTTP+JSON interface ({offered})"
            )
        url = str(interfaces[0].url or self.url)
        try:
            self.endpoint.origin.check(url, why="the agent card names")
        except OriginRefused as exc:
            raise self.endpoint.failure("GET", self._card_url, error=str(exc)) from None
        return url

    async def preflight(self) -> None:
        """Read the agent card and check it offers an interface this client can use (before any case runs)."""
        async with self.endpoint.turn():
            if self._card is None:
                self._card = await self._read_card()
            self._interface_url(self._card)

    def _create_client(self, card: Any) -> Any:
        from a2a.client import ClientConfig, ClientFactory
        from a2a.utils.constants import TransportProtocol

        bindings: list[str] = [TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON]
        self._rpc_url = self._interface_url(card)
        config = ClientConfig(
            streaming=True, httpx_client=self.endpoint.httpx_client(), supported_protocol_bindings=bindings
        )
        return ClientFactory(config).create(card)

    def _failure(self, error: BaseException) -> AgentError:
        """One message for whatever the SDK raised: status and body of an HTTP error, else the error itself."""
        if isinstance(error, AgentError):
            return error
        bounded = _cause(error, (AnswerTooLarge, OriginRefused))
        if bounded is not None:
            return self.endpoint.failure("POST", self._rpc_url, error=str(bounded))
        if _cause(error, RecursionError) is not None:
            detail = "the answer's JSON nests arrays and objects too deeply to be read"
            return self.endpoint.failure("POST", self._rpc_url, error=detail)
        cause = _http_cause(error)
        if isinstance(cause, httpx.HTTPStatusError):
            try:
                body = cause.response.content
            except httpx.ResponseNotRead:
                body = b""
            return self.endpoint.failure("POST", self._rpc_url, status=cause.response.status_code, body=body)
        if cause is not None:
            # Through httpx-aiohttp the httpx error wraps aiohttp's, which says better what happened.
            origin = cause.__cause__
            detail = describe_error(origin) if isinstance(origin, TRANSPORT_ERRORS) else _describe_httpx(cause)
            return self.endpoint.failure("POST", self._rpc_url, error=detail)
        return self.endpoint.failure("POST", self._rpc_url, error=str(error) or type(error).__name__)

    def _message(self, request: AgentRequest) -> Any:
        from a2a.types import Message, Part, Role, SendMessageRequest

        message = Message(
            message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=request.user_content.content)]
        )
        context_id, task_id = self._contexts.get(request.session_id, (None, None))
        if context_id:
            message.context_id = context_id
        if task_id:
            message.task_id = task_id
        return SendMessageRequest(message=message)

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Send the user turn as one A2A message and convert what the agent sends back, within the turn limit."""
        async with self.endpoint.turn():
            return await self._turn(request)

    async def _turn(self, request: AgentRequest) -> AgentOutput:
        from a2a.client import ClientCallContext

        from ._a2a_json import proto_json

        client = await self._client()
        send = self._message(request)
        headers = {}
        if request.user_id and _USER_ID_HEADER.lower() not in {h.lower() for h in self.endpoint.headers}:
            headers[_USER_ID_HEADER] = request.user_id
        context = ClientCallContext(service_parameters=headers)
        turn = A2aTurn()
        received = False

        async def exchange() -> None:
            nonlocal turn, received
            turn, received = A2aTurn(), False
            async for response in client.send_message(send, context=context):
                received = True
                turn.add(proto_json(response))

        def retryable(error: BaseException) -> bool:
            # Once the agent has answered anything it has acted on the message: sending it again could run it twice.
            cause = _http_cause(error)
            if received or cause is None:
                return False
            if isinstance(cause, httpx.HTTPStatusError):
                return retryable_status(cause.response.status_code)
            # httpx-aiohttp names every aiohttp connection error a ConnectTimeout; only those where no connection
            # was made (the aiohttp error it wraps says so) are safe to send again.
            origin = cause.__cause__
            return isinstance(cause, _CONNECTION_ERRORS) and (origin is None or isinstance(origin, CONNECT_ERRORS))

        def retry_after(error: BaseException) -> float | None:
            cause = _http_cause(error)
            return parse_retry_after(cause.response.headers) if isinstance(cause, httpx.HTTPStatusError) else None

        try:
            await self.endpoint.with_retries(exchange, retryable=retryable, retry_after=retry_after)
            if not turn.ended:
                await self._finish(client, turn, context)
        except Exception as exc:
            raise self._failure(exc) from None
        if turn.state in TERMINAL_STATES - _INTERRUPTED - {"completed"}:
            detail = f": {turn.error_text}" if turn.error_text else ""
            raise self.endpoint.failure("POST", self._rpc_url, error=f"the A2A task ended {turn.state}{detail}")
        task = turn.task_id if turn.state in _INTERRUPTED else None
        self._contexts[request.session_id] = (turn.context_id, task)
        self._contexts.move_to_end(request.session_id)
        if len(self._contexts) > _MAX_CONTEXTS:
            self._contexts.popitem(last=False)
        return turn.output()

    async def _finish(self, client: Any, turn: A2aTurn, context: Any) -> None:
        """A task not finished when the answer ended: a broken stream fails; a non-streaming answer (a task still
        working) is polled with ``GetTask`` until it finishes or the read timeout passes."""
        from a2a.types import GetTaskRequest

        from ._a2a_json import proto_json

        last = turn.state or "none"
        if self._card.capabilities.streaming:
            raise self.endpoint.failure(
                "POST", self._rpc_url, error=f"the event stream ended before the task finished (last state: {last})"
            )
        if not turn.task_id:
            raise self.endpoint.failure(
                "POST", self._rpc_url, error=f"the answer ended unfinished without a task to follow (state: {last})"
            )
        deadline = time.monotonic() + self.endpoint.settings.read_timeout
        delay = 0.1
        while not turn.ended:
            if time.monotonic() > deadline:
                raise self.endpoint.failure(
                    "POST", self._rpc_url, error=f"the task was still {turn.state} after the read timeout"
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
            task = await client.get_task(GetTaskRequest(id=turn.task_id), context=context)
            turn.add({"task": proto_json(task)})
