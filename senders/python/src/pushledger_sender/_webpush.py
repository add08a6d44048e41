"""Web Push (contract v1.3): what one request to a push service becomes on POST /v1/sends.

The rows of ``webpush_rows`` in Tests/Fixtures/sender-fields.json are the rules; the Node and Go
libraries run the same rows.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from ._fields import Caller, ReportError, _common, _headers, _put

#: Longest subscription endpoint the contract stores, in bytes.
MAX_ENDPOINT_BYTES = 2048
#: Longest ``TTL`` the contract stores: 28 days, the most push services keep a message.
MAX_TTL_SECONDS = 2_419_200
_REASON_BYTES = 255
# The endpoint, as the server reads it: https (in any case), a host after any user info (a name, an IPv4
# or an [IPv6] address; a port may follow), then anything; printable ASCII without spaces throughout.
_ENDPOINT = re.compile(r"[Hh][Tt][Tt][Pp][Ss]://(?:[^/?#]*@)?(?:\[[^/?#]*\]|[^/?#@:\[][^/?#@:]*)(?:[:/?#].*)?")
_PRINTABLE = re.compile(r"[\x21-\x7e]+")
_DIGITS = re.compile(r"[0-9]+")
# RFC 8030 §5.4: a topic is at most 32 characters of the URL- and filename-safe base64 alphabet.
_TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")
_LINES = re.compile(r"\r\n|\r|\n")
_URGENCIES = frozenset({"very-low", "low", "normal", "high"})


def _endpoint(value: Any) -> str:
    """The subscription endpoint as the contract takes it; the error never repeats it (it is the
    subscription's address, a secret of the sender's)."""
    if value is None or value == "":
        raise ReportError("missing_field", "token", "endpoint is required (the subscription's endpoint URL)")
    if (not isinstance(value, str) or len(value) > MAX_ENDPOINT_BYTES or not _PRINTABLE.fullmatch(value)
            or not _ENDPOINT.fullmatch(value)):
        raise ReportError("invalid_field", "token", "endpoint must be the subscription's https:// URL with a host, "
                                                    f"at most {MAX_ENDPOINT_BYTES} bytes of printable ASCII")
    return value


def _cut(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes, never inside a character."""
    return text.encode("utf-8", "surrogatepass")[:max_bytes].decode("utf-8", "ignore")


def webpush_reason(status: int, text: Optional[str]) -> Optional[str]:
    """The push service's error text: outside 2xx, a JSON body's ``reason`` (Apple), else its
    ``error`` (Mozilla's autopush), as the server reads ``response_body``; a text body's first
    non-blank line, trimmed (FCM); nothing from an HTML page. Cut to 255 bytes."""
    if status == 0 or 200 <= status <= 299 or not text or "\x00" in text:
        return None
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
        if text.lstrip().startswith("<"):
            return None
        line = next((line.strip() for line in _LINES.split(text) if line.strip()), None)
    else:
        if not isinstance(answer, dict):
            return None
        line = next((answer[k].strip() for k in ("reason", "error")
                     if isinstance(answer.get(k), str) and answer[k].strip()), None)
    return _cut(line, _REASON_BYTES) if line else None


def _ttl(value: Any) -> Optional[int]:
    """The ``TTL`` header in seconds; beyond the contract's 28 days, or malformed, left out."""
    if isinstance(value, str) and _DIGITS.fullmatch(value) and int(value) <= MAX_TTL_SECONDS:
        return int(value)
    return None


def webpush_send(app_id: str, default_channel: str, endpoint: Any, headers: Any, caller: Caller,
                 body: Any) -> dict:
    """The send of one Web Push request: the subscription ``endpoint``, the request's ``TTL``,
    ``Topic`` and ``Urgency`` headers, the push service's status and body. The payload is
    encrypted for the browser, so the notification id and channel come from the caller."""
    token = _endpoint(endpoint)
    request = _headers(headers, "headers")
    send, _ = _common(app_id, default_channel, "webpush", token, caller, None, None, body,
                      derive=lambda _provider, status, text: (webpush_reason(status, text), None))
    _put(send, "ttl_seconds", _ttl(request.get("ttl")))
    topic = request.get("topic")
    _put(send, "topic", topic if isinstance(topic, str) and _TOPIC.fullmatch(topic) else None)
    urgency = request.get("urgency")
    _put(send, "urgency", urgency if urgency in _URGENCIES else None)
    return send
