"""On-disk cache of judge answers: one small JSON file per (judge, prompt, generation config, sample)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._util.fileio import atomic_write
from ._protocol import JudgeMessage, ResponseSchema

__all__ = ["JudgeCache", "cache_key"]

_VERSION = 1


def cache_key(
    identity: Mapping[str, Any],
    messages: Sequence[JudgeMessage],
    generation_config: Mapping[str, Any],
    response_schema: ResponseSchema | None,
    sample_index: int,
) -> str:
    """The sha256 (hex) of everything that determines a judge answer.

    ``identity`` is the judge's model, base URL and extra fields; it never contains the API key.
    """
    material = {
        "v": _VERSION,
        "judge": dict(identity),
        "messages": [dict(m) for m in messages],
        "generation_config": dict(generation_config),
        "response_schema": response_schema.as_dict() if response_schema else None,
        "sample": sample_index,
    }
    encoded = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


class JudgeCache:
    """Judge answers stored under ``directory/<2 hex>/<sha256>.json``.

    Entries hold the key, the model name and the answer, never the API key. Writes are atomic (temporary file
    + rename), so concurrent runs sharing a directory only ever see whole entries; unreadable entries are misses.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        """The cached answer for ``key``, or ``None``."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("answer"), str):
            return None
        answer: str = data["answer"]
        return answer

    def put(self, key: str, answer: str, *, model: str = "") -> None:
        """Store ``answer`` for ``key`` atomically (no fsync: a lost entry only costs one more judge call)."""
        payload = json.dumps({"key": key, "model": model, "answer": answer}, ensure_ascii=False, indent=1)
        atomic_write(self._path(key), payload.encode("utf-8"), durable=False)

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("*/*.json")) if self.directory.is_dir() else 0
