"""load_agent: agent files, ADK-style directories, module:attribute specs, and precise errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentgauge.agents import AgentRequest, load_agent, looks_like_agent_spec
from agentgauge.errors import InputError
from agentgauge.model import Message


def _request() -> AgentRequest:
    return AgentRequest(user_content=Message(content="ping"), session_id="s")


async def _answer(spec: str) -> str | None:
    message = (await load_agent(spec).run(_request())).final_message()
    return message.content if message else None


async def test_file_prefers_root_agent_and_imports_siblings(tmp_path: Path) -> None:
    (tmp_path / "sibling_mod_x1.py").write_text("PREFIX = 'sib'\n")
    agent = tmp_path / "agent.py"
    agent.write_text(
        "from sibling_mod_x1 import PREFIX\n"
        "def root_agent(request):\n    return PREFIX + ':root'\n"
        "def agent(request):\n    return 'plain'\n"
    )
    assert await _answer(str(agent)) == "sib:root"


async def test_file_falls_back_to_agent(tmp_path: Path) -> None:
    path = tmp_path / "my_agent.py"
    path.write_text("async def agent(request):\n    return 'pong ' + request.user_content.content\n")
    assert await _answer(str(path)) == "pong ping"


async def test_two_files_with_the_same_name_do_not_collide(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "agent.py").write_text(f"def agent(request):\n    return {name!r}\n")
    assert await _answer(str(tmp_path / "a" / "agent.py")) == "a"
    assert await _answer(str(tmp_path / "b" / "agent.py")) == "b"


async def test_adk_style_directory(tmp_path: Path) -> None:
    pkg = tmp_path / "weather_app"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import agent\n")
    (pkg / "agent.py").write_text("def root_agent(request):\n    return 'from dir'\n")
    assert await _answer(str(pkg)) == "from dir"


async def test_module_attribute_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pkg_ag_1").mkdir()
    (tmp_path / "pkg_ag_1" / "__init__.py").write_text("")
    (tmp_path / "pkg_ag_1" / "mod.py").write_text(
        "class Holder:\n    @staticmethod\n    def agent(request):\n        return 'nested'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert await _answer("pkg_ag_1.mod:Holder.agent") == "nested"
    finally:
        for name in [m for m in sys.modules if m.startswith("pkg_ag_1")]:
            del sys.modules[name]


@pytest.mark.parametrize(
    ("setup", "spec", "message"),
    [
        (None, "missing/agent.py", "missing/agent.py: agent file not found"),
        ("x = 1\n", "{dir}/noagent.py", "noagent.py: defines no `root_agent` or `agent`"),
        ("raise RuntimeError('boom')\n", "{dir}/broken.py", "cannot import the agent: RuntimeError: boom"),
        (
            "import sys\nsys.exit(0)\n",
            "{dir}/exits.py",
            "cannot import the agent: SystemExit: the agent called sys.exit(0)",
        ),
        (
            "class E(Exception):\n    def __str__(self):\n        raise ValueError('x')\nraise E()\n",
            "{dir}/unprintable.py",
            "cannot import the agent: E: <message unavailable: str() raised ValueError: x>",
        ),
        ("agent = 42\n", "{dir}/notcallable.py", "int is not an agent"),
        (None, "json:nonexistent_attr", "module 'json' has no attribute 'nonexistent_attr'"),
        (None, "no_such_pkg_zz.mod:agent", "cannot import the agent: ModuleNotFoundError"),
        (None, "just words", "not an agent: expected path/to/agent.py"),
    ],
)
def test_bad_specs_raise_input_error(tmp_path: Path, setup: str | None, spec: str, message: str) -> None:
    spec = spec.format(dir=tmp_path)
    if setup is not None:
        Path(spec).write_text(setup)
    with pytest.raises(InputError) as info:
        load_agent(spec)
    assert message in str(info.value)


def test_directory_without_init(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"needs an __init__\.py"):
        load_agent(str(tmp_path))


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("agent.py", True),
        ("pkg.mod:attr", True),
        ("set.evalset.json", False),
        ("set.json:case1,case2", False),
        ("set.evalset.json:case1", False),
    ],
)
def test_looks_like_agent_spec(spec: str, expected: bool) -> None:
    assert looks_like_agent_spec(spec) is expected
