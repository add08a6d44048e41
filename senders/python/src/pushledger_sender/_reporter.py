"""The reporter: one call per attempt, batches posted to PushLedger from a background thread."""

from __future__ import annotations

import atexit
import collections
import datetime as _dt
import gzip
import json
import logging
import os
import random
import threading
import time
import urllib.error
import urllib.request
import weakref
from typing import Any, Mapping, Optional

from . import _upload
from ._fields import Caller, ReportError, apns_send, fcm_send
from ._webpush import webpush_send

log = logging.getLogger("pushledger_sender")


class Reporter:
    """Reports APNs, FCM and Web Push attempts to PushLedger (``POST /v1/sends``).

    ``apns()``, ``fcm()`` and ``webpush()`` only check the arguments and queue the send; a background thread
    posts batches of up to ``batch_size`` sends at least every ``flush_interval`` seconds,
    gzip-compressed, retries on network errors, 429 and 5xx (the server's ``Retry-After``, else
    backoff), halves a batch the server answers 413, and holds sends while the key is refused
    (401/403), trying again every 30 s or at once after :meth:`set_key`. At most ``max_queue``
    sends wait; past that the oldest is dropped and counted. Every send keeps its ``event_id``
    across retries, so the server stores it once however often it is posted. Nothing here raises
    into the caller's send path: a bad argument comes back as a :class:`ReportError` value.
    """

    def __init__(self, url: str, key: str, app_id: str, *, default_channel: str = "default",
                 batch_size: int = 500, flush_interval: float = 1.0, max_queue: int = 10_000,
                 timeout: float = 10.0, close_timeout: float = 5.0) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError("url must be the PushLedger server's http:// or https:// URL")
        if not isinstance(app_id, str) or not app_id:
            raise ValueError("app_id must be the key's app id")
        if not 1 <= batch_size <= 2000 or max_queue < batch_size:
            raise ValueError("batch_size must be 1 to 2000 (the server's limit) and max_queue at least batch_size")
        self._endpoint = url.rstrip("/") + "/v1/sends"
        self._key = key
        self._app_id = app_id
        self._default_channel = default_channel
        self._batch_size = batch_size
        self._flush_interval = flush_interval
        self._max_queue = max_queue
        self._timeout = timeout
        self._close_timeout = close_timeout
        self._cond = threading.Condition()
        # (sequence number, send): a batch is taken afresh from the front at each try, so sends
        # dropped for room while a try waits are not posted, and the front is removed once stored.
        self._queue: collections.deque = collections.deque()
        self._next_seq = 0
        self._limit = batch_size
        self._busy = False
        self._flush_requested = False
        self._closing = False
        self._closed = False
        self._key_refused = False
        self._key_refused_until = 0.0
        self._stats = collections.Counter()
        self._start_thread()
        atexit.register(self.close)
        # A pre-forking server (gunicorn, celery) forks after the reporter exists: the child gets the
        # queue but not the thread. It starts its own; sends posted by both are stored once (event_id).
        if hasattr(os, "register_at_fork"):
            ref = weakref.ref(self)
            os.register_at_fork(after_in_child=lambda: ref() is not None and ref()._after_fork())

    def _start_thread(self) -> None:
        self._thread = threading.Thread(target=self._run, name="pushledger-sender", daemon=True)
        self._thread.start()

    def _after_fork(self) -> None:
        self._cond = threading.Condition()
        self._busy = False
        if not self._closing:
            self._start_thread()

    # The public calls ------------------------------------------------------------------------

    def apns(self, token: str, payload: Any, headers: Optional[Mapping[str, Any]], status: int, body: Any = None, *,
             notification_id: Any, channel: Optional[str] = None, campaign: Optional[str] = None,
             sent_at: Optional[_dt.datetime] = None, apns_id: Optional[str] = None,
             environment: Optional[str] = None, installation_id: Any = None,
             latency_ms: Optional[int] = None) -> Optional[ReportError]:
        """Reports one APNs attempt: the device ``token``, the ``payload`` as sent (a mapping or
        its JSON text), the request's ``apns-*`` ``headers``, the answer's ``status`` (0 when no
        answer came) and ``body`` (text, bytes or parsed JSON; None when no answer came), and
        the answer's ``apns-id`` header. ``notification_id`` None takes the payload's
        ``notification_id``; ``channel`` None the payload's ``channel``, else the reporter's
        default. ``sent_at`` is the aware time the request was made (default: now). Returns
        None when queued, else the :class:`ReportError` saying which argument is wrong."""
        caller = Caller(notification_id=notification_id, channel=channel, campaign=campaign, sent_at=sent_at,
                        status=status, installation_id=installation_id, latency_ms=latency_ms,
                        environment=environment)
        return self._report(lambda: apns_send(self._app_id, self._default_channel, token, payload, headers, caller,
                                              body, apns_id))

    def fcm(self, message: Any, status: int, body: Any = None, *, notification_id: Any,
            channel: Optional[str] = None, campaign: Optional[str] = None, sent_at: Optional[_dt.datetime] = None,
            installation_id: Any = None, latency_ms: Optional[int] = None) -> Optional[ReportError]:
        """Reports one FCM HTTP v1 attempt: the ``message`` object as sent (its ``token`` is the
        device), the answer's ``status`` and ``body``. ``notification_id`` None takes
        ``message.data.notification_id``; ``channel`` None takes
        ``message.android.notification.channel_id``, then ``message.data.channel``, else the
        reporter's default. Returns None when queued, else a :class:`ReportError`."""
        caller = Caller(notification_id=notification_id, channel=channel, campaign=campaign, sent_at=sent_at,
                        status=status, installation_id=installation_id, latency_ms=latency_ms)
        return self._report(lambda: fcm_send(self._app_id, self._default_channel, message, caller, body))

    def webpush(self, endpoint: str, headers: Optional[Mapping[str, Any]], status: int, body: Any = None, *,
                notification_id: Any, channel: Optional[str] = None, campaign: Optional[str] = None,
                sent_at: Optional[_dt.datetime] = None, installation_id: Any = None,
                latency_ms: Optional[int] = None) -> Optional[ReportError]:
        """Reports one Web Push request: the subscription's ``endpoint`` (an https:// URL; it is
        the send's token), the request's ``headers`` (``TTL``, ``Topic`` and ``Urgency`` are read;
        names in any case), the push service's ``status`` (201 created; 0 when no answer came) and
        ``body`` (None when no answer came). The payload is encrypted for the browser, so
        ``notification_id`` is required here, and ``channel`` None is the reporter's default.
        Returns None when queued, else a :class:`ReportError` (its message never holds the
        endpoint)."""
        caller = Caller(notification_id=notification_id, channel=channel, campaign=campaign, sent_at=sent_at,
                        status=status, installation_id=installation_id, latency_ms=latency_ms)
        return self._report(lambda: webpush_send(self._app_id, self._default_channel, endpoint, headers, caller, body))

    def flush(self, timeout: float = 5.0) -> bool:
        """Posts what is queued now and waits up to ``timeout`` seconds for it to be stored;
        True when nothing is left waiting. Never call it on the send path."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._flush_requested = True
            self._cond.notify_all()
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    break
                self._cond.wait(left)
            return not self._queue

    def close(self, timeout: Optional[float] = None) -> bool:
        """Flushes for up to ``timeout`` seconds (the reporter's ``close_timeout`` by default) and
        stops the thread; later reports return a ``closed`` error. True when everything was
        stored. Also runs at interpreter exit."""
        with self._cond:
            if self._closing:
                return not self._queue
        drained = self.flush(self._close_timeout if timeout is None else timeout)
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(self._timeout + 1)
        with self._cond:
            self._closed = True
            left = len(self._queue)
        if left:
            log.warning("pushledger_sender: closed with %d sends not stored", left)
        atexit.unregister(self.close)
        return drained

    def set_key(self, key: str) -> None:
        """Replaces the sends key (after a rotation); sends held since the old key was refused go out."""
        with self._cond:
            self._key = key
            self._key_refused = False
            self._cond.notify_all()

    def stats(self) -> dict:
        """Counters since the start: ``reported``, ``accepted``, ``duplicates``, ``rejected`` (the
        server refused the send itself), ``invalid`` (refused at the call), ``dropped`` (no room,
        or a request refused whole), ``retries``, ``unauthorized``, and ``queued`` now."""
        with self._cond:
            out = {k: self._stats[k] for k in ("reported", "accepted", "duplicates", "rejected", "invalid",
                                               "dropped", "retries", "unauthorized")}
            out["queued"] = len(self._queue)
            return out

    def __enter__(self) -> "Reporter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # The queue -------------------------------------------------------------------------------

    def _report(self, build: Any) -> Optional[ReportError]:
        try:
            send = build()
        except ReportError as error:
            with self._cond:
                self._stats["invalid"] += 1
            log.warning("pushledger_sender: report refused: %s", error.message)
            return error
        except Exception as error:  # a bug here must not break the caller's send path
            log.exception("pushledger_sender: report failed")
            return ReportError("invalid_field", None, f"the report could not be built ({type(error).__name__})")
        with self._cond:
            if self._closing:
                return ReportError("closed", None, "the reporter is closed")
            if len(self._queue) >= self._max_queue:
                self._queue.popleft()
                self._stats["dropped"] += 1
            self._queue.append((self._next_seq, send))
            self._next_seq += 1
            self._stats["reported"] += 1
            if len(self._queue) == 1 or len(self._queue) >= self._limit:
                self._cond.notify_all()
        return None

    def _run(self) -> None:
        attempt = 0
        while True:
            with self._cond:
                # The interval runs from the first send waiting; a retry goes as soon as its delay is over.
                deadline = None
                while not self._closing:
                    if self._key_refused and time.monotonic() < self._key_refused_until:
                        self._cond.wait(self._key_refused_until - time.monotonic())
                        continue
                    if not self._queue:
                        deadline = None
                        self._cond.wait()
                        continue
                    deadline = deadline or time.monotonic() + self._flush_interval
                    now = time.monotonic()
                    if attempt or self._flush_requested or len(self._queue) >= self._limit or now >= deadline:
                        break
                    self._cond.wait(deadline - now)
                if self._closing:
                    return
                batch = [send for _, (_, send) in zip(range(self._limit), self._queue)]
                last_seq = self._queue[len(batch) - 1][0]
                key = self._key
                self._busy = True
            try:
                outcome, retry_after = self._post(batch, key)
            except Exception:  # never let the thread die: the sends stay queued
                log.exception("pushledger_sender: upload failed")
                outcome, retry_after = _upload.UNEXPECTED, None
            with self._cond:
                self._busy = False
                if outcome in (_upload.STORED, _upload.REFUSED) or (outcome == _upload.SPLIT and len(batch) == 1):
                    if outcome != _upload.STORED:
                        self._stats["dropped"] += len(batch)
                    while self._queue and self._queue[0][0] <= last_seq:
                        self._queue.popleft()
                    attempt = 0
                    if not self._queue:
                        self._flush_requested = False
                elif outcome == _upload.SPLIT:
                    self._limit = max(1, len(batch) // 2)
                elif outcome == _upload.UNAUTHORIZED:
                    self._stats["unauthorized"] += 1
                    # Held, not dropped: one probe per longest backoff, since the key may be fixed on the
                    # server's side (created, restored); a new key goes out at once.
                    self._key_refused = key == self._key
                    self._key_refused_until = time.monotonic() + _upload.MAX_DELAY_S
                else:
                    attempt += 1
                    self._stats["retries"] += 1
                    delay = _upload.retry_delay(attempt, retry_after, random.random())
                    end = time.monotonic() + delay
                    while not self._closing and time.monotonic() < end:
                        self._cond.wait(end - time.monotonic())
                self._cond.notify_all()

    def _post(self, batch: list, key: str) -> tuple:
        """One upload; (outcome, Retry-After). Counts what a stored answer says."""
        body = gzip.compress(json.dumps({"sends": batch}, separators=(",", ":")).encode("utf-8"))
        request = urllib.request.Request(self._endpoint, data=body, method="POST", headers={
            "Content-Type": "application/json", "Content-Encoding": "gzip", "Authorization": f"Bearer {key}",
            "User-Agent": "pushledger-sender-python/0.1"})
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                status, headers, answer = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, headers, answer = error.code, error.headers, error.read()
        except (OSError, ValueError) as error:
            log.warning("pushledger_sender: upload of %d sends got no answer (%s)", len(batch), type(error).__name__)
            return _upload.RETRY, None
        content_type = headers.get("Content-Type")
        outcome = _upload.classify(status, content_type, answer)
        if outcome == _upload.STORED:
            parsed = _upload.parse_answer(content_type, answer) or {}
            rejected = parsed.get("rejected") if isinstance(parsed.get("rejected"), list) else []
            with self._cond:
                self._stats["accepted"] += parsed.get("accepted", 0)
                self._stats["duplicates"] += parsed.get("duplicates", 0) if type(parsed.get("duplicates")) is int else 0
                self._stats["rejected"] += len(rejected)
            for item in rejected[:10]:
                if isinstance(item, dict):
                    log.warning("pushledger_sender: send rejected: %s %s", item.get("error"), item.get("message"))
        elif outcome != _upload.RETRY or status != 429:
            log.warning("pushledger_sender: upload of %d sends answered %s (%s)", len(batch), status, outcome)
        return outcome, headers.get("Retry-After")
