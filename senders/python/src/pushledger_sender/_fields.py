"""The rule table: what one reported attempt becomes on POST /v1/sends.

Tests/Fixtures/sender-fields.json holds the rows the Python, Node and Go libraries all run, and
the server's own validator runs every expected send of it, so a rule changed here and not there
fails a test.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import uuid
from typing import Any, Mapping, Optional

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MS = _dt.timedelta(milliseconds=1)
# The contract's time range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, in ms since 1970.
_MIN_MS = -62135596800000
_MAX_MS = 253402300799999
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_DIGITS = re.compile(r"^[0-9]+$")
# A google.protobuf.Duration in JSON: seconds with up to nine fraction digits and an "s".
_DURATION = re.compile(r"^([0-9]+)(?:\.([0-9]{1,9}))?s$")
_FCM_ERROR_TYPE = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

#: Largest ``response_body`` the contract stores, in UTF-8 bytes; a longer body is left out.
MAX_RESPONSE_BODY_BYTES = 4096
#: Byte limits of the contract's free strings.
_LABEL, _IDENTIFIER, _SHORT_WORD = 255, 255, 64


class ReportError(Exception):
    """A report that cannot become a send: ``code`` is ``missing_field``, ``invalid_field`` or
    ``closed``, ``field`` names the argument, and ``message`` is safe to log (it never holds a
    token or a key)."""

    def __init__(self, code: str, field: Optional[str], message: str) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.message = message

    def __repr__(self) -> str:
        return f"ReportError({self.code!r}, {self.field!r}, {self.message!r})"


def _storable(value: Any, max_bytes: int) -> Optional[str]:
    """The value when the contract can store it as a string of at most ``max_bytes``; else None."""
    if not isinstance(value, str) or "\x00" in value:
        return None
    size = len(value.encode("utf-8", "surrogatepass"))
    return value if 0 < size <= max_bytes else None


def _is_one(value: Any) -> bool:
    """A JSON number equal to 1 (APNs' ``mutable-content`` and ``content-available`` flags)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 1


def _obj(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def format_time(ms: int) -> str:
    """RFC 3339 in UTC with milliseconds, the form every library writes."""
    return (_EPOCH + ms * _MS).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def time_ms(when: Optional[_dt.datetime]) -> int:
    """Milliseconds since 1970 of an aware datetime (now when None); a naive one is refused,
    since which zone it meant would be a guess."""
    if when is None:
        when = _dt.datetime.now(_dt.timezone.utc)
    if not isinstance(when, _dt.datetime) or when.tzinfo is None or when.utcoffset() is None:
        raise ReportError("invalid_field", "sent_at", "sent_at must be a timezone-aware datetime")
    return (when - _EPOCH) // _MS


def _headers(headers: Optional[Mapping[str, Any]], field: str) -> dict:
    """Header names in lower case (HTTP/2 sends them so); numbers as their decimal text."""
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise ReportError("invalid_field", field, f"{field} must be a mapping of header names to values")
    out = {}
    for name, value in headers.items():
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if isinstance(name, str) and isinstance(value, str):
            out[name.lower()] = value
    return out


def _json_object(value: Any, field: str) -> Mapping[str, Any]:
    """A payload or message given as a mapping or as the JSON text that was sent."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ReportError("invalid_field", field, f"{field} is not JSON") from None
    if not isinstance(value, Mapping):
        raise ReportError("invalid_field", field, f"{field} must be a JSON object")
    return value


def _body_text(body: Any) -> Optional[str]:
    """The provider's answer body as text: verbatim when given as str or UTF-8 bytes; a parsed
    body is written back as compact JSON."""
    if body is None:
        return None
    if isinstance(body, (bytes, bytearray)):
        try:
            return bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return None
    if isinstance(body, str):
        return body
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def _derive_reason(provider: str, status: int, text: Optional[str]) -> tuple:
    """(reason, unregistered_at ms) read out of the answer, as the server's ProviderResponse
    reads them: APNs non-2xx ``reason`` (and for 410 ``timestamp``); FCM's FcmError
    ``errorCode``, else ``error.status``."""
    if text is None:
        return None, None
    try:
        answer = json.loads(text)
    except ValueError:
        return None, None
    if not isinstance(answer, dict):
        return None, None
    if provider == "apns":
        if 200 <= status <= 299:
            return None, None
        reason = _storable(answer.get("reason"), _IDENTIFIER)
        stamp = answer.get("timestamp")
        unregistered = None
        if status == 410 and type(stamp) is int and _MIN_MS <= stamp <= _MAX_MS:
            unregistered = stamp
        return reason, unregistered
    error = answer.get("error")
    if not isinstance(error, dict):
        return None, None
    code = None
    details = error.get("details")
    if isinstance(details, list):
        detail = next((d for d in details if isinstance(d, dict) and d.get("@type") == _FCM_ERROR_TYPE), None)
        code = _storable(detail.get("errorCode"), _IDENTIFIER) if detail is not None else None
    return code or _storable(error.get("status"), _IDENTIFIER), None


def _collapse_id(value: Any) -> Optional[str]:
    """1 to 64 printable ASCII characters, else nothing (the provider refuses such a request)."""
    if isinstance(value, str) and 0 < len(value) <= 64 and all(" " <= c <= "~" for c in value):
        return value
    return None


def _apns_expiry(value: Any, sent_ms: int) -> Optional[int]:
    """``apns-expiration`` in UNIX seconds as ms; 0, or a time already past, is "try once,
    never store", which the contract writes as ``sent_at``."""
    if not isinstance(value, str) or not _DIGITS.match(value):
        return None
    ms = int(value) * 1000
    return max(ms, sent_ms) if ms <= _MAX_MS else None


def _ttl_expiry(value: Any, sent_ms: int) -> Optional[int]:
    """``sent_at`` plus an FCM ``ttl`` duration such as ``"3600s"`` or ``"1.5s"``."""
    match = _DURATION.match(value) if isinstance(value, str) else None
    if not match:
        return None
    ms = sent_ms + int(match.group(1)) * 1000 + int((match.group(2) or "0").ljust(3, "0")[:3])
    return ms if ms <= _MAX_MS else None


def _priority(value: Any) -> Optional[int]:
    if isinstance(value, str) and _DIGITS.match(value) and int(value) <= 10:
        return int(value)
    return None


def _apns_push_type(header: Any, aps: Mapping[str, Any]) -> Optional[str]:
    """The ``apns-push-type`` header; without one, what APNs' own rules make of the payload:
    ``content-available`` alone is a background push, an alert, badge or sound an alert."""
    stated = _storable(header, _SHORT_WORD)
    if stated is not None:
        return stated
    visible = any(aps.get(k) is not None for k in ("alert", "badge", "sound"))
    if visible:
        return "alert"
    return "background" if _is_one(aps.get("content-available")) else None


class Caller:
    """The caller's own fields of one report, checked once for both providers."""

    def __init__(self, *, notification_id: Any, channel: Any, campaign: Any, sent_at: Any, status: Any,
                 installation_id: Any = None, latency_ms: Any = None, environment: Any = None) -> None:
        self.notification_id = notification_id
        self.channel = channel
        self.campaign = campaign
        self.sent_at = sent_at
        self.status = status
        self.installation_id = installation_id
        self.latency_ms = latency_ms
        self.environment = environment


def _uuid(value: Any, field: str) -> str:
    if isinstance(value, uuid.UUID):
        return str(value)
    if not isinstance(value, str) or not _UUID.match(value):
        raise ReportError("invalid_field", field, f"{field} must be a UUID (8-4-4-4-12 hex)")
    return value


def _label(value: Any, field: str, max_bytes: int) -> str:
    text = _storable(value, max_bytes)
    if text is None:
        raise ReportError("invalid_field", field, f"{field} must be a string of 1 to {max_bytes} bytes without U+0000")
    return text


def _common(app_id: str, default_channel: str, provider: str, token: str, caller: Caller,
            payload_nid: Any, payload_channel: Any, body: Any, derive: Any = _derive_reason) -> tuple:
    """The fields every send has, from the caller's arguments, the payload's PushLedger keys and
    the answer (``derive`` reads the reason out of it); and ``sent_at`` in ms, which the expiry
    is read against."""
    status = caller.status
    if type(status) is not int or not (status == 0 or 100 <= status <= 599):
        raise ReportError("invalid_field", "status", "status must be the provider's HTTP status (100 to 599) or 0")
    nid = caller.notification_id if caller.notification_id is not None else payload_nid
    if nid is None:
        raise ReportError("missing_field", "notification_id",
                          "notification_id is required (as an argument or the payload's notification_id)")
    if caller.channel is not None:
        channel = _label(caller.channel, "channel", _LABEL)
    else:
        channel = _storable(payload_channel, _LABEL) or default_channel
    send = {"event_id": str(uuid.uuid4()), "notification_id": _uuid(nid, "notification_id"), "app_id": app_id,
            "provider": provider, "token": token, "channel": channel}
    if caller.campaign is not None:
        send["campaign"] = _label(caller.campaign, "campaign", _LABEL)
    if caller.installation_id is not None:
        send["installation_id"] = _uuid(caller.installation_id, "installation_id")
    if caller.environment is not None:
        send["environment"] = _label(caller.environment, "environment", _SHORT_WORD)
    if caller.latency_ms is not None:
        if type(caller.latency_ms) is not int or not 0 <= caller.latency_ms <= 86_400_000:
            raise ReportError("invalid_field", "latency_ms", "latency_ms must be an integer from 0 to 86400000")
        send["latency_ms"] = caller.latency_ms
    sent_ms = time_ms(caller.sent_at)
    send["sent_at"] = format_time(sent_ms)
    send["status"] = status
    text = _body_text(body)
    reason, unregistered = derive(provider, status, text)
    if reason is not None:
        send["reason"] = reason
    if unregistered is not None:
        send["unregistered_at"] = format_time(unregistered)
    if text == "" or _storable(text, MAX_RESPONSE_BODY_BYTES) is not None:
        send["response_body"] = text
    return send, sent_ms


def _put(send: dict, key: str, value: Any) -> None:
    if value is not None:
        send[key] = value


def apns_send(app_id: str, default_channel: str, token: Any, payload: Any, headers: Any, caller: Caller,
              body: Any, apns_id: Any) -> dict:
    """The send of one APNs attempt: the request's token, payload and ``apns-*`` headers, and
    the answer's status, body and ``apns-id``."""
    if not isinstance(token, str) or not token:
        raise ReportError("missing_field" if not token else "invalid_field", "token", "token must be the device token")
    payload = _json_object(payload, "payload")
    request = _headers(headers, "headers")
    aps = _obj(payload.get("aps"))
    send, sent_ms = _common(app_id, default_channel, "apns", token, caller, payload.get("notification_id"),
                            payload.get("channel"), body)
    _put(send, "apns_id", _storable(apns_id, _IDENTIFIER) or _storable(request.get("apns-id"), _IDENTIFIER))
    _put(send, "priority", _priority(request.get("apns-priority")))
    _put(send, "push_type", _apns_push_type(request.get("apns-push-type"), aps))
    send["mutable_content"] = _is_one(aps.get("mutable-content"))
    _put(send, "collapse_id", _collapse_id(request.get("apns-collapse-id")))
    expiry = _apns_expiry(request.get("apns-expiration"), sent_ms)
    _put(send, "expires_at", None if expiry is None else format_time(expiry))
    return send


def fcm_send(app_id: str, default_channel: str, message: Any, caller: Caller, body: Any) -> dict:
    """The send of one FCM HTTP v1 attempt: the ``message`` object (or the whole request body
    ``{"message": …}``) and the answer's status and body."""
    message = _json_object(message, "message")
    if set(message) == {"message"} and isinstance(message["message"], Mapping):
        message = message["message"]
    # A Firebase installation ID (``fid``) stands for the device where a registration token would.
    token = message.get("token") or message.get("fid")
    if not isinstance(token, str) or not token:
        raise ReportError("missing_field", "token",
                          "the message has no device token: report topic and condition sends per device")
    data = _obj(message.get("data"))
    android = _obj(message.get("android"))
    apns_headers = _headers(_obj(_obj(message.get("apns")).get("headers")), "message.apns.headers")
    android_notification = android.get("notification")
    send, sent_ms = _common(app_id, default_channel, "fcm", token, caller, data.get("notification_id"),
                            _obj(android_notification).get("channel_id") or data.get("channel"), body)
    android_priority = android.get("priority")
    android_priority = android_priority.upper() if isinstance(android_priority, str) else None
    android_level = {"HIGH": 10, "NORMAL": 5}.get(android_priority)
    _put(send, "priority", android_level or _priority(apns_headers.get("apns-priority")))
    has_notification = isinstance(message.get("notification"), Mapping) or isinstance(android_notification, Mapping)
    kinds = {(True, False): "notification", (False, True): "data", (True, True): "hybrid"}
    _put(send, "message_kind", kinds.get((has_notification, bool(data))))
    collapse = _collapse_id(android.get("collapse_key")) or _collapse_id(apns_headers.get("apns-collapse-id"))
    _put(send, "collapse_id", collapse)
    expiry = _ttl_expiry(android.get("ttl"), sent_ms)
    if expiry is None:
        expiry = _apns_expiry(apns_headers.get("apns-expiration"), sent_ms)
    _put(send, "expires_at", None if expiry is None else format_time(expiry))
    return send
