"""The Firebase Admin SDK (PyPI ``firebase-admin``) with every attempt reported.

>>> message_id = send(messaging.Message(token=token, data={...}), reporter, channel="orders")
>>> batch = send_each(messages, reporter)

Each message is reported as the FCM HTTP v1 message the SDK posts, with FCM's HTTP status and
body when it answered (``FirebaseError.http_response``) and status 0 when it did not.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any, List, Optional

from firebase_admin import messaging

from ._reporter import Reporter


def encode(message: Any) -> dict:
    """The HTTP v1 ``message`` object the SDK sends for ``message``. The SDK's encoder is not
    public API; the integration tests pin it to the installed SDK."""
    return messaging._MessagingService.encode_message(message)


def _report(reporter: Reporter, message: Any, sent_at: _dt.datetime, message_id: Optional[str],
            error: Optional[BaseException], **fields: Any) -> None:
    if error is None:
        status, body = 200, json.dumps({"name": message_id}, separators=(",", ":"))
    else:
        answer = getattr(error, "http_response", None)
        status = getattr(answer, "status_code", 0) if answer is not None else 0
        body = getattr(answer, "text", None) if answer is not None else None
    reporter.fcm(encode(message), status, body, sent_at=sent_at, **fields)


def send(message: Any, reporter: Reporter, *, dry_run: bool = False, app: Any = None, notification_id: Any = None,
         channel: Optional[str] = None, campaign: Optional[str] = None) -> str:
    """``messaging.send`` that reports the attempt; raises what it raises."""
    sent_at = _dt.datetime.now(_dt.timezone.utc)
    fields = dict(notification_id=notification_id, channel=channel, campaign=campaign)
    try:
        message_id = messaging.send(message, dry_run=dry_run, app=app)
    except Exception as error:
        _report(reporter, message, sent_at, None, error, **fields)
        raise
    _report(reporter, message, sent_at, message_id, None, **fields)
    return message_id


def send_each(messages: List[Any], reporter: Reporter, *, dry_run: bool = False, app: Any = None,
              channel: Optional[str] = None, campaign: Optional[str] = None) -> Any:
    """``messaging.send_each`` that reports each message's attempt (the notification id of
    each comes from its ``data``)."""
    sent_at = _dt.datetime.now(_dt.timezone.utc)
    batch = messaging.send_each(messages, dry_run=dry_run, app=app)
    for message, response in zip(messages, batch.responses):
        _report(reporter, message, sent_at, response.message_id, response.exception, notification_id=None,
                channel=channel, campaign=campaign)
    return batch
