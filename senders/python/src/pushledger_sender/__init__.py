"""Report every APNs, FCM and Web Push attempt to PushLedger in one call (``POST /v1/sends``).

>>> reporter = Reporter("https://pushledger.example.com", SENDS_KEY, "com.example.shop")
>>> reporter.apns(token, payload, headers, status, body, notification_id=nid, channel="orders")
>>> reporter.webpush(endpoint, headers, status, body, notification_id=nid, channel="orders")

Every contract field is derived from what the sender already has: the payload and headers it
sent and the answer it got (Tests/Fixtures/sender-fields.json in the PushLedger repository).
"""

from ._fields import MAX_RESPONSE_BODY_BYTES, ReportError
from ._reporter import Reporter

__all__ = ["Reporter", "ReportError", "MAX_RESPONSE_BODY_BYTES"]
__version__ = "0.1.0"
