"""Every command, snippet and quoted output in README.md and docs/*.md runs as documented.

Conventions for writing docs (each one is enforced here):

- **Commands.** In a fenced block whose info string starts with ``bash``, ``sh``, ``shell`` or ``console``, every
  line that starts with ``agentgauge `` or ``pytest `` (after an optional ``$ `` prompt, required in ``console``
  blocks, whose other lines are output; a trailing ``\\`` continues the line) is run with bash from a temporary
  copy of ``examples/`` — the working directory is that copy, so results (``.agentgauge/results``) and reports land
  there and nothing is written in the source tree. Quote paths of the shipped examples
  (``examples/calculator/agent.py``, ``examples/trace_mode/...``), not placeholders.
- **Exit codes.** A command must exit 0 unless its trailing comment says ``# exit N`` (e.g.
  ``agentgauge eval examples/trace_mode/calculator_traces.evalset.json  # exit 1: two recorded regressions``).
- **Illustrative text.** A line whose comment contains ``# illustrative``, or every line of a block whose info
  string contains the word ``illustrative`` (```` ```bash illustrative ````, ```` ```python illustrative ````), is
  shown but not run: use it only for placeholders that cannot exist in examples/ (your own agent, a CI path).
- **Python.** A ```` ```python ```` block runs as a script from the same temporary directory and must exit 0; a
  block that defines a ``test_`` function is run with pytest instead and its tests must pass.
- **Quoted output.** A fenced block directly preceded by ``<!-- output: COMMAND -->`` is real output of COMMAND
  (run as above, stdout and stderr together, 120 columns). Each non-empty line of the block must equal a line of the
  real output, in order (other output lines may sit between them); ``…`` in a quoted line stands for any text
  (ids, durations).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import agentgauge

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_SHELL = {"bash", "sh", "shell", "console"}
_FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
_OUTPUT = re.compile(r"<!--\s*output:\s*(?P<cmd>.+?)\s*-->\s*$")
_EXIT = re.compile(r"#\s*exit\s+(\d+)\b")
_RUNNABLE = re.compile(r"^(?:\$\s+)?(?P<cmd>(?:agentgauge|pytest)\s.*)$")


@dataclass(frozen=True)
class Block:
    """A fenced block of a doc file."""

    file: Path
    line: int  # 1-based line of the opening fence
    info: str
    body: str
    output_of: str | None  # the command named by a preceding ``<!-- output: ... -->``

    @property
    def lang(self) -> str:
        return self.info.split()[0] if self.info.split() else ""

    @property
    def illustrative(self) -> bool:
        return "illustrative" in self.info.split()

    def where(self, offset: int = 0) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line + 1 + offset}"


def _blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        body = textwrap.dedent(match.group("body"))
        before = _OUTPUT.search(text[: match.start()])
        blocks.append(
            Block(
                file=path,
                line=text.count("\n", 0, match.start()) + 1,
                info=match.group("info").strip(),
                body=body,
                output_of=before.group("cmd") if before else None,
            )
        )
    return blocks


def _split_comment(line: str) -> tuple[str, str]:
    """(command, comment) of a shell line; a ``#`` inside quotes is not a comment."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i:]
    return line.rstrip(), ""


@dataclass(frozen=True)
class Command:
    """A runnable command quoted in a doc, with the exit code the doc promises."""

    where: str
    command: str
    exit_code: int


def _commands(block: Block) -> list[Command]:
    if block.lang not in _SHELL or block.illustrative:
        return []
    commands = []
    lines = block.body.splitlines()
    i = 0
    while i < len(lines):
        start = i
        line = lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        command, comment = _split_comment(line.strip())
        match = _RUNNABLE.match(command)
        if block.lang == "console" and not command.startswith("$ "):
            continue  # a console block shows output too: only prompted lines are commands
        if match is None or "illustrative" in comment:
            continue
        code = _EXIT.search(comment)
        commands.append(Command(block.where(start), match.group("cmd"), int(code.group(1)) if code else 0))
    return commands


ALL_BLOCKS = [block for path in DOCS for block in _blocks(path)]
COMMANDS = [command for block in ALL_BLOCKS for command in _commands(block)]
PYTHON = [block for block in ALL_BLOCKS if block.lang == "python" and not block.illustrative]
OUTPUTS = [block for block in ALL_BLOCKS if block.output_of is not None]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A temporary copy of examples/ with ``agentgauge``, ``pytest`` and ``python`` on PATH running this checkout."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    launchers = {
        "agentgauge": '-c "from agentgauge.cli import main; main()"',
        "pytest": "-m pytest -p no:cacheprovider",
        "python": "",
    }
    for name, args in launchers.items():
        launcher = bin_dir / name
        launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" {args} "$@"\n')
        launcher.chmod(0o755)
    return tmp_path


def _env(workdir: Path) -> dict[str, str]:
    # GITHUB_*: when the suite itself runs in GitHub Actions, documented commands must not annotate its job.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OPENAI_", "COLUMNS", "GITHUB_"))}
    src = str(Path(agentgauge.__file__).resolve().parents[1])
    env.update(
        PATH=f"{workdir / '.bin'}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=src,  # the working directory is importable only where the program promises it
        COLUMNS="120",
        NO_COLOR="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _run(command: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=workdir,
        env=_env(workdir),
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_docs_quote_commands() -> None:
    """The extraction finds the documented commands (a broken fence regex would silently test nothing)."""
    assert len(COMMANDS) >= 20
    assert any("examples/trace_mode/" in c.command for c in COMMANDS)
    assert any(c.exit_code == 1 for c in COMMANDS)
    assert any(b.file.name == "README.md" for b in PYTHON)


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c.where for c in COMMANDS])
def test_documented_command(cmd: Command, workdir: Path) -> None:
    """The command exits with the documented code and prints no traceback."""
    proc = _run(cmd.command, workdir)
    output = proc.stdout + proc.stderr
    assert proc.returncode == cmd.exit_code, f"{cmd.where}: {cmd.command}\nexit {proc.returncode}\n{output[-3000:]}"
    assert "Traceback (most recent call last)" not in output, output[-3000:]


@pytest.mark.parametrize("block", PYTHON, ids=[b.where() for b in PYTHON])
def test_documented_python(block: Block, workdir: Path) -> None:
    """A Python snippet runs (or, when it defines tests, its tests pass) from a copy of examples/."""
    is_test = re.search(r"^(async )?def test_", block.body, re.M) is not None
    script = workdir / ("test_doc_snippet.py" if is_test else "doc_snippet.py")
    script.write_text(block.body, encoding="utf-8")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] if is_test else [sys.executable]
    proc = subprocess.run(
        [*argv, script.name],
        cwd=workdir,
        env=_env(workdir),
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"{block.where()}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


def _line_pattern(quoted: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in quoted.rstrip().split("…")) + r"\s*")


def _missing_lines(quoted: str, output: str) -> list[str]:
    """Quoted lines not found, in order, among the output lines (``…`` matches any text)."""
    lines = [line.rstrip() for line in output.splitlines()]
    position = 0
    for quoted_line in (q for q in quoted.splitlines() if q.strip()):
        pattern = _line_pattern(quoted_line)
        found = next((i for i in range(position, len(lines)) if pattern.fullmatch(lines[i])), None)
        if found is None:
            return [quoted_line]
        position = found + 1
    return []


def test_missing_lines_matcher() -> None:
    """The quoted-output matcher needs every line, in order, and treats ``…`` as a wildcard."""
    output = "a 1\nresult calc_1f0c\nDuration: 0.01 s\n"
    assert _missing_lines("a 1\nresult calc_…\nDuration: … s", output) == []
    assert _missing_lines("Duration: … s\na 1", output) == ["a 1"]
    assert _missing_lines("a 2", output) == ["a 2"]


@pytest.mark.parametrize("block", OUTPUTS, ids=[b.where() for b in OUTPUTS])
def test_quoted_output_is_real(block: Block, workdir: Path) -> None:
    """Output quoted after ``<!-- output: COMMAND -->`` is what COMMAND prints."""
    assert block.output_of is not None
    command, comment = _split_comment(block.output_of)
    code = _EXIT.search(comment)
    proc = _run(command, workdir)
    assert proc.returncode == (int(code.group(1)) if code else 0), proc.stdout + proc.stderr
    missing = _missing_lines(block.body, proc.stdout + proc.stderr)
    assert not missing, f"{block.where()}: not in the output of {command!r}: {missing[0]!r}\n{proc.stdout}{proc.stderr}"


def test_command_extraction_conventions(tmp_path: Path) -> None:
    """Exit markers, illustrative lines and blocks, continuations, console prompts and quoted ``#`` are honoured."""
    doc = tmp_path / "doc.md"
    doc.write_text(
        "```bash\n"
        "agentgauge list-metrics\n"
        "agentgauge eval a.evalset.json  # exit 1: two cases fail\n"
        "agentgauge eval path/to/agent.py x.json  # illustrative\n"
        "agentgauge eval agent.py \\\n"
        '    "b#c.json"  # exit 2\n'
        "make demo\n"
        "```\n"
        "```bash illustrative\nagentgauge eval my.evalset.json\n```\n"
        "```console\n$ agentgauge list-metrics --json\nagentgauge metrics (output, not a command)\n```\n"
        "<!-- output: agentgauge list-metrics  # exit 0 -->\n```text\nx\n```\n",
        encoding="utf-8",
    )
    blocks = [Block(ROOT / "docs" / "x.md", b.line, b.info, b.body, b.output_of) for b in _blocks(doc)]
    found = [(c.command, c.exit_code, c.where) for b in blocks for c in _commands(b)]
    assert found == [
        ("agentgauge list-metrics", 0, "docs/x.md:2"),
        ("agentgauge eval a.evalset.json", 1, "docs/x.md:3"),
        ('agentgauge eval agent.py "b#c.json"', 2, "docs/x.md:5"),
        ("agentgauge list-metrics --json", 0, "docs/x.md:13"),
    ]
    assert [b.output_of for b in blocks] == [None, None, None, "agentgauge list-metrics  # exit 0"]
