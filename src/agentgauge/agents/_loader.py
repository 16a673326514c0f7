"""Load an agent from the command line's AGENT argument."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from ..errors import InputError
from ._adapt import as_agent
from ._safety import describe_exception
from ._types import Agent

if TYPE_CHECKING:
    from .remote import RemoteAgentSettings

__all__ = ["load_agent", "load_agent_object", "load_named_object", "looks_like_agent_spec"]

_MODULE_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def looks_like_agent_spec(spec: str) -> bool:
    """True when ``spec`` has the shape of an agent: a ``.py`` file, a directory, ``package.module:attr`` or a
    remote agent URL (``a2a+http://...``, ``adk+http://...``, ``agui+http://...``, ``trpcagent+http://...``,
    ``http(s)://...``), and is not an existing file such as an eval set, with or without a ``:case1,case2``
    suffix."""
    from .remote import is_remote_agent_spec

    if is_remote_agent_spec(spec):
        return True
    path = Path(spec)
    if spec.endswith(".py") or path.is_dir():
        return True
    module = spec.partition(":")[0]
    if path.exists() or Path(module).exists() or module.endswith(".json"):
        return False
    return bool(_MODULE_SPEC.match(spec))


def _import_file(path: Path, *, package: bool) -> ModuleType:
    # A unique module name per path so two agents called agent.py do not collide in sys.modules.
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    stem = re.sub(r"\W", "_", path.name if package else path.stem)
    name = f"_agentgauge_agent_{stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    init = path / "__init__.py" if package else path
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[str(path)] if package else None
    )
    if spec is None or spec.loader is None:
        raise InputError("cannot be imported as a Python module", file=str(path))
    module = importlib.util.module_from_spec(spec)
    # Sibling modules of the agent file (utilities, tools) must be importable, as when running it directly.
    parent = str(path.parent.resolve())
    if parent not in sys.path:
        sys.path.insert(0, parent)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _pick(module: ModuleType, names: tuple[str, ...], where: str) -> object:
    for name in names:
        if hasattr(module, name):
            return getattr(module, name)
    wanted = " or ".join(f"`{n}`" for n in names)
    raise InputError(f"defines no {wanted}", file=where)


def _load_object(spec: str) -> object:
    path = Path(spec)
    if path.is_dir():
        if not (path / "__init__.py").is_file():
            raise InputError("an agent directory needs an __init__.py (exposing `agent.root_agent`)", file=spec)
        package = _import_file(path.resolve(), package=True)
        sub = getattr(package, "agent", None)
        if not isinstance(sub, ModuleType):
            try:
                sub = importlib.import_module(f"{package.__name__}.agent")
            except ModuleNotFoundError:
                return _pick(package, ("root_agent",), spec)
        return _pick(sub, ("root_agent",), f"{spec}/agent.py")
    if spec.endswith(".py"):
        if not path.is_file():
            raise InputError("agent file not found", file=spec)
        return _pick(_import_file(path.resolve(), package=False), ("root_agent", "agent"), spec)
    if _MODULE_SPEC.match(spec):
        module_name, _, attribute = spec.partition(":")
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        value: object = importlib.import_module(module_name)
        for part in attribute.split("."):
            if not hasattr(value, part):
                raise InputError(f"module {module_name!r} has no attribute {attribute!r}", file=spec)
            value = getattr(value, part)
        return value
    raise InputError(
        "not an agent: expected path/to/agent.py, an ADK agent directory or package.module:attribute", file=spec
    )


def load_python_object(spec: str, default: str) -> object:
    """The object ``spec`` names: ``path/to/file.py`` (its attribute ``default``), ``file.py:attribute`` or
    ``package.module:attribute``; :class:`InputError` naming ``spec`` when the file or attribute is missing (the
    import's own errors propagate)."""
    path, _, attribute = spec.partition(".py:")
    if attribute or spec.endswith(".py"):
        file = Path(path + ".py") if attribute else Path(spec)
        if not file.is_file():
            raise InputError("file not found", file=spec)
        return _pick(_import_file(file.resolve(), package=False), (attribute or default,), spec)
    return _load_object(spec)


def missing_package_hint(exc: BaseException) -> str | None:
    """What to install when importing an agent failed for want of a known optional package, in one line; else
    ``None``.

    An ADK agent using ``LiteLlm`` needs ``litellm``, which the ``adk`` extra does not install (google-adk has it
    only in its large ``extensions`` extra, with Anthropic, LangGraph, Kubernetes, ...): the hint names the
    package with the versions the installed google-adk accepts. Older google-adk versions fail with a bare
    ``No module named 'litellm'``, newer ones with their own ``ImportError``; both get the hint.
    """
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ImportError):
            name = error.name or ""
            if name.partition(".")[0] == "litellm" or (not name and "LiteLLM" in str(error)):
                return (
                    "the agent uses LiteLlm, which needs the litellm package: "
                    f"pip install {_litellm_requirement()!r} (in this environment)"
                )
            if name == "google.adk" or name.startswith("google.adk."):
                return (
                    "the agent uses Google ADK, which is not installed: "
                    "pip install 'agentgauge[adk]' (in this environment)"
                )
        error = error.__cause__ or error.__context__
    return None


def _litellm_requirement() -> str:
    """``litellm`` with the version range the installed google-adk declares for it (``litellm`` if none)."""
    from importlib import metadata

    try:
        declared = metadata.requires("google-adk") or []
    except metadata.PackageNotFoundError:
        declared = []
    for requirement in declared:
        found = re.match(r"\s*litellm\s*([<>=!~][^;]*)?", requirement)
        if found is not None:
            return "litellm" + "".join((found[1] or "").split())
    return "litellm"


def load_agent_object(spec: str) -> object:
    """The object ``spec`` names, as its module defines it (an ADK agent, an :class:`OpenAIAgent`, a function, an
    object with ``run``), before :func:`as_agent` wraps it: ``path/to/agent.py``, an ADK agent directory or
    ``package.module:attribute`` (see :func:`load_agent`; remote agent URLs name no object). Every failure raises
    :class:`InputError` naming ``spec``."""
    try:
        return _load_object(spec)
    except InputError:
        raise
    except (Exception, SystemExit) as exc:  # sys.exit() at import must not end the run with exit code 0
        hint = missing_package_hint(exc)
        raise InputError(f"cannot import the agent: {hint or describe_exception(exc)}", file=spec) from None


def load_named_object(spec: str, *, defaults: tuple[str, ...], what: str) -> object:
    """The object ``spec`` names: ``path/to/file.py:attribute``, ``path/to/file.py`` (its first attribute of
    ``defaults``) or ``package.module:attribute``. ``what`` names the object in errors (:class:`InputError` naming
    ``spec``), e.g. ``"optimizer"``."""
    path, sep, attribute = spec.partition(".py:")
    try:
        if sep or spec.endswith(".py"):
            file = Path(path + ".py") if sep else Path(spec)
            if not file.is_file():
                raise InputError(f"{what} file not found", file=spec)
            return _pick(_import_file(file.resolve(), package=False), (attribute,) if sep else defaults, spec)
        if not _MODULE_SPEC.match(spec):
            raise InputError(f"not a {what}: expected path/to/file.py:attribute or package.module:attribute", file=spec)
        return _load_object(spec)
    except InputError:
        raise
    except (Exception, SystemExit) as exc:  # sys.exit() at import must not end the run with exit code 0
        raise InputError(f"cannot load the {what}: {describe_exception(exc)}", file=spec) from None


def load_agent(spec: str, *, remote: RemoteAgentSettings | None = None) -> Agent:
    """Load an agent from ``spec`` and wrap it with :func:`as_agent`.

    ``spec`` is one of:

    - ``path/to/agent.py``: the module's ``root_agent``, else its ``agent``;
    - an ADK-style directory whose ``__init__.py`` makes ``agent.root_agent`` available;
    - ``package.module:attribute`` (importable from the current directory or ``sys.path``);
    - a remote agent URL (see :mod:`agentgauge.agents.remote`), reached with the ``remote`` settings (headers,
      timeouts, retries, config file; defaults when ``None``).

    Every failure (missing file, import error, missing attribute, not an agent, unusable URL or settings) raises
    :class:`InputError` naming ``spec``.
    """
    from .remote import is_remote_agent_spec

    if is_remote_agent_spec(spec):
        from .remote import load_remote_agent

        return load_remote_agent(spec, remote)
    obj = load_agent_object(spec)
    try:
        return as_agent(obj)
    except TypeError as exc:
        raise InputError(str(exc), file=spec) from None
