"""The peer frameworks' private virtualenv: where it lives, how it is installed, how to run code in it.

The peers (``google-adk[eval]``, ``pydantic-evals``, ``rouge-score``) never enter agentgauge's own environment: they
live in ``benchmarks/.peers/venv`` so that their start-up cost, memory and dependency pins cannot leak into ours.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
PEERS_DIR = BENCH_DIR / ".peers"
VENV_DIR = PEERS_DIR / "venv"
PEER_PACKAGES = ("google-adk[eval]>=2.0", "pydantic-evals>=1.0", "rouge-score>=0.1.2")
# Not a peer: the sampling profiler ``run.py --profile`` uses; kept here so agentgauge's own environment stays lean.
TOOLS = ("py-spy>=0.3",)
# Distribution names whose versions go into the results file.
PEER_DISTRIBUTIONS = ("google-adk", "pydantic-evals", "pydantic", "rouge-score", "nltk")


def peer_python() -> Path:
    """The interpreter of the peer virtualenv (it may not exist yet)."""
    return VENV_DIR / "bin" / "python"


def peers_available() -> bool:
    """True when the peer virtualenv exists and can import both peers."""
    py = peer_python()
    if not py.exists():
        return False
    probe = "import google.adk.evaluation, pydantic_evals"
    return subprocess.run([str(py), "-c", probe], capture_output=True, timeout=120).returncode == 0


def install_peers(*, log: Path | None = None) -> None:
    """Create the peer virtualenv (if needed) and install the peers into it; pip's output goes to ``log``."""
    PEERS_DIR.mkdir(parents=True, exist_ok=True)
    if not peer_python().exists():
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV_DIR)
    log = log or PEERS_DIR / "install.log"
    cmd = [str(peer_python()), "-m", "pip", "install", "--upgrade", "--progress-bar", "off", *PEER_PACKAGES, *TOOLS]
    with log.open("ab") as out:
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SystemExit(f"peer install failed (exit {done.returncode}); see {log}")


def peer_versions() -> dict[str, str]:
    """Installed versions of the peer distributions, read inside the peer virtualenv."""
    if not peer_python().exists():
        return {}
    code = (
        "import json, importlib.metadata as m\n"
        f"names = {list(PEER_DISTRIBUTIONS)!r}\n"
        "out = {}\n"
        "for n in names:\n"
        "    try: out[n] = m.version(n)\n"
        "    except m.PackageNotFoundError: pass\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([str(peer_python()), "-c", code], capture_output=True, text=True, timeout=120)
    return dict(json.loads(done.stdout)) if done.returncode == 0 else {}


if __name__ == "__main__":
    install_peers()
    print(json.dumps(peer_versions()), file=sys.stdout)
