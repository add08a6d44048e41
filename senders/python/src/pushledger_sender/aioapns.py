"""aioapns (PyPI ``aioapns``) with every attempt reported: wrap the client once.

>>> apns = ReportingAPNs(APNs(key=..., key_id=..., team_id=..., topic="com.example.shop"), reporter)
>>> result = await apns.send_notification(request, channel="orders")

aioapns writes the request's headers itself from the ``NotificationRequest``; this module writes
the same ones for the report (``apns-expiration`` from ``time_to_live`` as aioapns computes it,
to the second) and turns the ``NotificationResult`` back into the answer APNs gave.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from typing import Any, Optional

from ._reporter import Reporter


def request_headers(request: Any, topic: Optional[str], now: float) -> dict:
    """The ``apns-*`` headers aioapns sends for ``request`` at UNIX time ``now``."""
    headers = {"apns-id": request.notification_id}
    if request.apns_topic or topic:
        headers["apns-topic"] = request.apns_topic or topic
    if request.time_to_live is not None:
        headers["apns-expiration"] = str(int(now) + request.time_to_live)
    if request.priority is not None:
        headers["apns-priority"] = str(request.priority)
    if request.collapse_key is not None:
        headers["apns-collapse-id"] = request.collapse_key
    if request.push_type is not None:
        headers["apns-push-type"] = request.push_type.value
    return headers


def answer_body(result: Any) -> str:
    """The body APNs answered: empty on success, else its ``reason`` (and ``timestamp`` for 410)."""
    if result.is_successful:
        return ""
    body = {"reason": result.description}
    if result.timestamp is not None:
        body["timestamp"] = result.timestamp
    return json.dumps(body, separators=(",", ":"))


class ReportingAPNs:
    """An ``aioapns.APNs`` whose ``send_notification`` also reports the attempt. The PushLedger
    ``notification_id`` is the argument, else the payload's ``notification_id``, else the
    request's ``notification_id`` (its ``apns-id``)."""

    def __init__(self, apns: Any, reporter: Reporter, *, environment: Optional[str] = None) -> None:
        self.apns = apns
        self.reporter = reporter
        pool = getattr(apns, "pool", None)
        server = getattr(getattr(pool, "protocol_class", None), "APNS_SERVER", "")
        self.environment = environment or ("development" if "development" in server else "production")
        self.topic = getattr(pool, "apns_topic", None)

    async def send_notification(self, request: Any, *, notification_id: Any = None, channel: Optional[str] = None,
                                campaign: Optional[str] = None) -> Any:
        """Sends as aioapns does and reports the attempt; aioapns' own errors (no connection)
        are reported as status 0 and raised as they were."""
        sent_at = _dt.datetime.now(_dt.timezone.utc)
        headers = request_headers(request, self.topic, time.time())
        payload = request.message
        nid = notification_id or (payload.get("notification_id") if isinstance(payload, dict) else None) \
            or request.notification_id
        common = dict(notification_id=nid, channel=channel, campaign=campaign, sent_at=sent_at,
                      environment=self.environment)
        started = time.monotonic()
        try:
            result = await self.apns.send_notification(request)
        except Exception:
            self.reporter.apns(request.device_token, payload, headers, 0, None, **common)
            raise
        latency = int((time.monotonic() - started) * 1000)
        self.reporter.apns(request.device_token, payload, headers, int(result.status), answer_body(result),
                           apns_id=result.notification_id or None, latency_ms=latency, **common)
        return result
