"""What the reporter does with each answer to an upload, and how long it waits before the next
try: the clients' shared rules (Tests/Fixtures/upload-answers.json, retry-delays.json)."""

from __future__ import annotations

import json
import re
from typing import Optional

#: PushLedger's own 400 codes: only these refuse a request for good (its sends are dropped).
REFUSAL_CODES = frozenset({"invalid_json", "invalid_gzip", "missing_field", "invalid_field", "unstorable"})
BASE_DELAY_S = 0.5
MAX_DELAY_S = 30.0
MAX_RETRY_AFTER_S = 60.0
_SECONDS = re.compile(r"^[0-9]+(?:\.[0-9]+)?$")

STORED, REFUSED, SPLIT, RETRY, UNAUTHORIZED, UNEXPECTED = (
    "stored", "refused", "split", "retry", "unauthorized", "unexpected")


def _is_json(content_type: Optional[str]) -> bool:
    return content_type is not None and content_type.split(";", 1)[0].strip().lower() == "application/json"


def parse_answer(content_type: Optional[str], body: bytes) -> Optional[dict]:
    """The answer's JSON object when it is one, sent as JSON; else None."""
    if not _is_json(content_type):
        return None
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def classify(status: Optional[int], content_type: Optional[str], body: bytes) -> str:
    """The outcome of one upload; ``status`` None is a network error (no answer)."""
    if status is None or status == 429 or 500 <= status <= 599:
        return RETRY
    if status == 413:
        return SPLIT
    if status in (401, 403):
        return UNAUTHORIZED
    answer = parse_answer(content_type, body)
    if status == 200:
        accepted = answer.get("accepted") if answer is not None else None
        return STORED if type(accepted) is int else UNEXPECTED
    if status == 400:
        own = answer is not None and answer.get("error") in REFUSAL_CODES and isinstance(answer.get("message"), str)
        return REFUSED if own else RETRY
    return UNEXPECTED


def retry_delay(attempt: int, retry_after: Optional[str], random: float) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1-based): a usable ``Retry-After``
    (non-negative decimal seconds, at most 60), else exponential backoff with equal jitter."""
    if retry_after is not None and _SECONDS.match(retry_after.strip()):
        return min(float(retry_after.strip()), MAX_RETRY_AFTER_S)
    exponential = min(MAX_DELAY_S, BASE_DELAY_S * 2 ** min(max(attempt - 1, 0), 20))
    return exponential / 2 + exponential / 2 * min(max(random, 0.0), 1.0)
