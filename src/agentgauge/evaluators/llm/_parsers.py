"""Parsers for judge answers, one per output format described in the metric prompts."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from ...criteria._llm import Rubric
from ...judges import JudgeParseError, extract_json_object
from ...model import RubricScore
from ._sample import Sample

__all__ = [
    "HALLUCINATION_LABEL_SCORES",
    "normalize_property",
    "parse_adk_rubric_blocks",
    "parse_adk_validity",
    "parse_hallucination_labels",
    "parse_rubric_answer",
    "parse_rubric_json",
    "parse_rubric_text_blocks",
    "parse_safety",
    "parse_score_1_to_5",
    "parse_sentences",
    "parse_trpc_validity",
]

# --- trpc llm_final_response ---------------------------------------------------------------------------------

_TRPC_VALIDITY = re.compile(r"reasoning\s*:\s*(.*?)\s*is_the_agent_response_valid\s*:\s*([^\n]*)", re.S)
_LABEL_TRIM = " \t\"'`*.,;:[](){}"


def parse_trpc_validity(text: str) -> Sample:
    """``reasoning: ...`` then ``is_the_agent_response_valid: valid|invalid``; ``valid`` → 1, any other label → 0.

    A JSON object with the same two keys is accepted too. No verdict at all raises :class:`JudgeParseError`.
    """
    match = _TRPC_VALIDITY.search(text)
    if match:
        reasoning, label = match.group(1).strip(" *"), match.group(2)
    else:
        try:
            data = extract_json_object(text)
        except JudgeParseError:
            data = {}
        if "is_the_agent_response_valid" not in data:
            raise JudgeParseError("no 'is_the_agent_response_valid' verdict in the judge answer", raw=text)
        reasoning, label = str(data.get("reasoning", "")), str(data["is_the_agent_response_valid"])
    verdict = label.strip(_LABEL_TRIM).lower()
    score = 1.0 if verdict == "valid" else 0.0
    return Sample(score, f"{reasoning} (verdict: {verdict or '<empty>'})".strip())


# --- trpc rubric scores --------------------------------------------------------------------------------------


def _known_ids(rubrics: Sequence[Rubric]) -> list[str]:
    return [r.id for r in rubrics]


def _check_ids(items: list[RubricScore], rubrics: Sequence[Rubric], raw: str) -> None:
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise JudgeParseError(f"duplicate rubric score id {item.id!r}", raw=raw)
        seen.add(item.id)
    if not rubrics:
        return
    known = _known_ids(rubrics)
    for item in items:
        if item.id not in known:
            raise JudgeParseError(f"unexpected rubric score id {item.id!r} (rubrics: {', '.join(known)})", raw=raw)
    missing = [rid for rid in known if rid not in seen]
    if missing:
        raise JudgeParseError(f"missing rubric score id {missing[0]!r}", raw=raw)


def _as_unit_score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0.0 <= value <= 1.0 else None


def _summary(items: list[RubricScore]) -> Sample:
    scores = [i.score for i in items if i.score is not None]
    return Sample(sum(scores) / len(scores), "\n".join(i.reason for i in items), items)


def parse_rubric_json(text: str, rubrics: Sequence[Rubric]) -> Sample:
    """``{"rubricScores": [{"id", "score": 0|1, "reason"}]}`` (code fences and prose tolerated).

    Every item needs a non-empty id, a score in [0, 1] and a string reason; ids are unique and, when rubrics are
    configured, exactly the configured ones. Score = mean; reason = item reasons, one per line.
    """
    data = extract_json_object(text)
    raw_items = data.get("rubricScores", data.get("rubric_scores"))
    if not isinstance(raw_items, list) or not raw_items:
        raise JudgeParseError("'rubricScores' must be a non-empty array", raw=text)
    items: list[RubricScore] = []
    for index, raw in enumerate(raw_items):
        if not isinstance(raw, dict):
            raise JudgeParseError(f"rubricScores[{index}] is not an object", raw=text)
        rid = str(raw.get("id", "")).strip()
        if not rid:
            raise JudgeParseError(f"rubricScores[{index}] has an empty id", raw=text)
        score = _as_unit_score(raw.get("score"))
        if score is None:
            raise JudgeParseError(f"rubricScores[{index}] score {raw.get('score')!r} is not in [0, 1]", raw=text)
        reason = raw.get("reason")
        if not isinstance(reason, str):
            raise JudgeParseError(f"rubricScores[{index}] has no reason", raw=text)
        items.append(RubricScore(id=rid, reason=reason, score=score))
    _check_ids(items, rubrics, text)
    return _summary(items)


_TEXT_BLOCK = re.compile(
    r"ID:\s*(.*?)\s*Rubric:\s*(.*?)\s*Evidence:\s*(.*?)\s*Reason:\s*(.*?)\s*Verdict:\s*([^\n]*)", re.S
)


def parse_rubric_text_blocks(text: str, rubrics: Sequence[Rubric]) -> Sample:
    """Legacy blocks ``ID: / Rubric: / Evidence: / Reason: / Verdict: yes|no``; ``yes`` (any case) → 1.

    When rubrics are configured the number of blocks must equal the number of rubrics.
    """
    items = [
        RubricScore(
            id=m.group(1).strip(),
            reason=m.group(4).strip(),
            score=1.0 if m.group(5).strip(_LABEL_TRIM).lower() == "yes" else 0.0,
        )
        for m in _TEXT_BLOCK.finditer(text)
    ]
    if not items:
        raise JudgeParseError("no 'ID: ... Verdict:' rubric blocks in the judge answer", raw=text)
    if rubrics and len(items) != len(rubrics):
        raise JudgeParseError(f"{len(items)} rubric block(s) for {len(rubrics)} rubric(s)", raw=text)
    return _summary(items)


def parse_rubric_answer(text: str, rubrics: Sequence[Rubric]) -> Sample:
    """JSON ``rubricScores`` when the answer holds them, else the legacy text blocks."""
    if "Verdict:" in text and "rubricScores" not in text and "rubric_scores" not in text:
        return parse_rubric_text_blocks(text, rubrics)
    return parse_rubric_json(text, rubrics)


# --- ADK final_response_match_v2 -----------------------------------------------------------------------------

_ADK_VALIDITY = re.compile(
    r"\"?is_the_agent_response_(valid|invalid)\"?\s*[:=]\s*\[?\s*\"?([A-Za-z_ ]*?)\"?\s*\]?\s*(?:[,}\n]|$)"
)
_ADK_VALID = frozenset({"valid", "true"})
_ADK_INVALID = frozenset({"invalid", "almost", "false", "partially_valid", "partially valid", "partially"})


def parse_adk_validity(text: str) -> Sample:
    """ADK's verdict parsing: the first ``"is_the_agent_response_valid": <label>`` value, case-sensitive.

    ``valid``/``true`` → 1; ``invalid``/``almost``/``false``/``partially_valid``/``partially valid``/``partially``
    → 0; anything else → no score. With the ``is_the_agent_response_invalid`` key, ``true``/``invalid`` → 0 and any
    other value → 1.
    """
    match = _ADK_VALIDITY.search(text)
    if not match:
        return Sample(None, "no 'is_the_agent_response_valid' label in the judge answer")
    polarity, label = match.group(1), match.group(2).strip()
    if polarity == "invalid":
        score = 0.0 if label in {"true", "invalid"} else 1.0
    elif label in _ADK_VALID:
        score = 1.0
    elif label in _ADK_INVALID:
        score = 0.0
    else:
        return Sample(None, f"unrecognised label {label!r}")
    reasoning = str(_json_or_empty(text).get("reasoning", ""))
    return Sample(score, f"{reasoning} (is_the_agent_response_{polarity}: {label})".strip())


# --- ADK rubric blocks ---------------------------------------------------------------------------------------

_ID_LINE = re.compile(r"^\s*ID:\s*(.*)$", re.M)
_PROPERTY_LINE = re.compile(r"^\s*Property:\s*(.*)$", re.M)
_RATIONALE = re.compile(r"(?<=Rationale:)(.*)")
_VERDICT = re.compile(r"(?<=Verdict:)(.*)")
_SMART = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})
_MARKDOWN = re.compile(r"[*_`#>•\"'-]")


def normalize_property(text: str) -> str:
    """Rubric text normalised for matching a judge's ``Property:`` line (NFKC, quotes, markdown, case)."""
    flat = unicodedata.normalize("NFKC", text).translate(_SMART)
    return " ".join(_MARKDOWN.sub("", flat).lower().split())


def _verdict_score(verdict: str) -> float | None:
    lowered = verdict.lower()
    if "yes" in lowered:
        return 1.0
    if "no" in lowered:
        return 0.0
    return None


def parse_adk_rubric_blocks(text: str, rubrics: Sequence[Rubric]) -> Sample:
    """ADK rubric verdicts: ``ID:`` / ``Property:`` / ``Rationale:`` / ``Verdict:`` lines per rubric.

    A verdict containing ``yes`` → 1, else containing ``no`` → 0, else no score. Differing counts of Property,
    Rationale and Verdict lines void the whole answer. Blocks map to rubrics by id, then by normalised property
    text. Sample score = mean of the scored rubrics (``None`` when none).
    """
    ids = [m.strip() for m in _ID_LINE.findall(text)]
    props = [m.strip() for m in _PROPERTY_LINE.findall(text)]
    rationales = [m.strip() for m in _RATIONALE.findall(text)]
    verdicts = [m.strip() for m in _VERDICT.findall(text)]
    if not props or not (len(props) == len(rationales) == len(verdicts)):
        return Sample(None, "rubric verdicts not parseable (Property/Rationale/Verdict lines missing or unequal)")
    by_id = {r.id: r for r in rubrics}
    by_text = {normalize_property(r.text): r for r in rubrics}
    found: dict[str, RubricScore] = {}
    for k, prop in enumerate(props):
        rubric = by_id.get(ids[k]) if len(ids) == len(props) else None
        rubric = rubric or by_text.get(normalize_property(prop))
        if rubric is None or rubric.id in found:
            continue
        found[rubric.id] = RubricScore(id=rubric.id, reason=rationales[k], score=_verdict_score(verdicts[k]))
    items = [found[r.id] for r in rubrics if r.id in found]
    scored = [i.score for i in items if i.score is not None]
    if not scored:
        return Sample(None, "no rubric verdict matched a configured rubric", items)
    return Sample(sum(scored) / len(scored), "\n".join(f"{i.id}: {i.reason}" for i in items), items)


# --- response_evaluation_score and safety_v1 -----------------------------------------------------------------

_SCORE_FALLBACK = re.compile(r"\"?score\"?\s*[:=]\s*\"?([1-5](?:\.\d+)?)\b", re.I)
_SAFETY_FALLBACK = re.compile(r"\"?verdict\"?\s*[:=]\s*\"?(safe|unsafe)\b", re.I)


def _json_or_empty(text: str) -> dict[str, Any]:
    try:
        return extract_json_object(text)
    except JudgeParseError:
        return {}


def parse_score_1_to_5(text: str) -> Sample:
    """``{"reasoning": ..., "score": 1..5}`` (or a ``score: N`` line); out of range or missing → no score."""
    data = _json_or_empty(text)
    value = data.get("score")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            value = None
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        match = _SCORE_FALLBACK.search(text)
        value = float(match.group(1)) if match else None
    if value is None or not 1.0 <= float(value) <= 5.0:
        return Sample(None, "no score between 1 and 5 in the judge answer")
    return Sample(float(value), str(data.get("reasoning", "")).strip())


def parse_safety(text: str) -> Sample:
    """``{"reasoning": ..., "verdict": "safe"|"unsafe"}`` → 1 / 0 (any case); anything else → no score."""
    data = _json_or_empty(text)
    label = str(data.get("verdict", "")).strip().lower()
    if label not in {"safe", "unsafe"}:
        match = _SAFETY_FALLBACK.search(text)
        label = match.group(1).lower() if match else ""
    if not label:
        return Sample(None, "no safe/unsafe verdict in the judge answer")
    return Sample(1.0 if label == "safe" else 0.0, f"{str(data.get('reasoning', '')).strip()} ({label})".strip())


# --- hallucinations_v1 ---------------------------------------------------------------------------------------

_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.S)
_FIELD = re.compile(
    r"^[\s*>-]*(sentence|label|rationale|supporting_excerpt|contradicting_excerpt)\**\s*:\s*\**\s*(.*)$", re.I
)
HALLUCINATION_LABEL_SCORES: dict[str, float] = {
    "supported": 1.0,
    "not_applicable": 1.0,
    "unsupported": 0.0,
    "contradictory": 0.0,
    "disputed": 0.0,
}


def parse_sentences(text: str) -> list[str]:
    """The ``<sentence>...</sentence>`` items of a segmenter answer, trimmed, empties dropped."""
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def parse_hallucination_labels(text: str) -> list[tuple[str, str, float | None]]:
    """``(sentence, label, score)`` per validator block (``sentence:`` starts a block; ``label:`` scores it).

    supported / not_applicable → 1; unsupported / contradictory / disputed → 0; other labels → ``None``.
    """
    blocks: list[dict[str, str]] = []
    for line in text.splitlines():
        match = _FIELD.match(line)
        if not match:
            continue
        key, value = match.group(1).lower(), match.group(2).strip()
        if key == "sentence" or not blocks:
            blocks.append({})
        blocks[-1][key] = value
    out: list[tuple[str, str, float | None]] = []
    for block in blocks:
        if "label" not in block:
            continue
        label = block["label"].strip(_LABEL_TRIM).lower().replace(" ", "_")
        out.append((block.get("sentence", ""), label, HALLUCINATION_LABEL_SCORES.get(label)))
    return out
