"""The reporter against a real `pushledger serve` on the suite's own database."""

import datetime as dt
import signal
import threading
import time
import uuid

from conftest import (BASE_SENT_S, create_key, unique_app, fixture, parse_time, report_row, send_columns, shifted,
                      stored_sends)
from pushledger_sender import Reporter

TABLE = fixture("sender-fields.json")


def key_and_server(server_factory, app):
    """A key for ``app``, created before the server starts so that the server knows it at once."""
    key = create_key(app)
    return key, server_factory()


def same(field, stored, expected):
    if field in ("sent_at", "expires_at", "unregistered_at"):
        return parse_time(stored) == parse_time(expected)
    return stored == expected


def report_and_store(server_factory, app_prefix, rows):
    """Reports the rows that have a send, moved to now, for a new app through a real server; returns
    them and the stored sends by notification id, each stored once."""
    app = unique_app(app_prefix)
    key, server = key_and_server(server_factory, app)
    now = int(time.time())
    moved = [shifted(row, now - BASE_SENT_S) for row in rows if "send" in row]
    with Reporter(server.url, key, app) as reporter:
        for row in moved:
            assert report_row(reporter, row) is None
        assert reporter.flush(10)
        assert reporter.stats()["accepted"] == len(moved), reporter.stats()
    stored = {s["notification_id"]: s for s in stored_sends(app)}
    assert len(stored) == len(moved)
    return moved, stored


def test_every_rule_table_row_is_stored_once_with_every_field(server_factory):
    moved, stored = report_and_store(server_factory, "com.example.py.fields", TABLE["rows"])
    columns = send_columns()
    for row in moved:
        send = stored[row["send"]["notification_id"]]
        for field, expected in row["send"].items():
            if field == "app_id":
                continue
            assert same(field, send[field], expected), (row["name"], field, send[field], expected)
        absent = columns - set(row["send"]) - {"event_id", "app_id", "token_key", "installation_id", "resolved_by",
                                               "received_at"}
        assert all(send[c] is None for c in absent if c in send), (row["name"], {c: send[c] for c in absent})


def test_every_webpush_row_is_stored_as_the_contract_says(server_factory):
    """Web Push rows: each send's fields stored as posted; ttl_seconds as expires_at = sent_at + TTL, topic
    as collapse_id, urgency with the send, and the push service the row says the server derives."""
    moved, stored = report_and_store(server_factory, "com.example.py.webpush.fields", TABLE["webpush_rows"])
    for row in moved:
        expected = dict(row["send"], **row["stored"])
        ttl, topic = expected.pop("ttl_seconds", None), expected.pop("topic", None)
        send = stored[expected["notification_id"]]
        for field, value in expected.items():
            if field != "app_id":
                assert same(field, send[field], value), (row["name"], field, send[field], value)
        expiry = None if ttl is None else parse_time(send["sent_at"]) + dt.timedelta(seconds=ttl)
        stored_expiry = send["expires_at"] and parse_time(send["expires_at"])
        assert (send["collapse_id"], stored_expiry) == (topic, expiry), row["name"]
        assert send["urgency"] == expected.get("urgency"), row["name"]


def apns_alert(reporter, nid):
    return reporter.apns("ab" * 32, {"aps": {"alert": "Hi", "mutable-content": 1}}, {"apns-push-type": "alert"}, 200,
                         "", notification_id=nid, channel="orders")


def test_exactly_once_across_a_server_restart(server_factory):
    app = unique_app("com.example.py.restart")
    key, server = key_and_server(server_factory, app)
    ids = [str(uuid.uuid4()) for _ in range(400)]
    with Reporter(server.url, key, app, batch_size=25, flush_interval=0.01) as reporter:
        for i, nid in enumerate(ids):
            assert apns_alert(reporter, nid) is None
            if i == 150:
                server.stop(signal.SIGKILL)  # mid-stream: some batches may be committed and unanswered
            if i == 250:
                server.start()
        assert reporter.flush(30), reporter.stats()
        stats = reporter.stats()
    assert stats["retries"] >= 1, stats
    counts = {}
    for send in stored_sends(app):
        counts[send["notification_id"]] = counts.get(send["notification_id"], 0) + 1
    assert counts == {nid: 1 for nid in ids}


def test_a_wrong_key_holds_the_sends_until_the_key_changes(server_factory):
    app = unique_app("com.example.py.wrongkey")
    key, server = key_and_server(server_factory, app)
    with Reporter(server.url, "pl_wrong_" + key[-6:], app, flush_interval=0.01) as reporter:
        ids = [str(uuid.uuid4()) for _ in range(5)]
        for nid in ids:
            apns_alert(reporter, nid)
        assert not reporter.flush(1.5)
        stats = reporter.stats()
        assert stats["unauthorized"] >= 1 and stats["queued"] == 5 and stats["dropped"] == 0, stats
        assert stored_sends(app) == []
        reporter.set_key(key)
        assert reporter.flush(10)
    assert sorted(s["notification_id"] for s in stored_sends(app)) == sorted(ids)


def test_429_waits_for_retry_after_and_loses_nothing(server_factory):
    app = unique_app("com.example.py.rate")
    key = create_key(app, "--rate", "40", "--burst", "20")
    server = server_factory()
    with Reporter(server.url, key, app, batch_size=20,
                  flush_interval=0.01) as reporter:
        ids = [str(uuid.uuid4()) for _ in range(80)]
        for nid in ids:
            apns_alert(reporter, nid)
        assert reporter.flush(30)
        stats = reporter.stats()
    assert stats["retries"] >= 1 and stats["accepted"] == 80, stats
    assert sorted(s["notification_id"] for s in stored_sends(app)) == sorted(ids)


def test_413_splits_the_batch(server_factory):
    app = unique_app("com.example.py.split")
    key = create_key(app)
    server = server_factory("--max-events", "7")
    with Reporter(server.url, key, app, batch_size=50) as reporter:
        ids = [str(uuid.uuid4()) for _ in range(40)]
        for nid in ids:
            apns_alert(reporter, nid)
        assert reporter.flush(15)
        stats = reporter.stats()
    assert stats["accepted"] == 40 and stats["dropped"] == 0, stats
    assert sorted(s["notification_id"] for s in stored_sends(app)) == sorted(ids)


def test_unreachable_server_drops_the_oldest_counted_and_never_blocks(server_factory):
    app = unique_app("com.example.py.outage")
    key = create_key(app)
    from conftest import Server
    server = Server()  # not started yet: nothing listens on its port
    ids = [str(uuid.uuid4()) for _ in range(250)]
    with Reporter(server.url, key, app, batch_size=10, max_queue=100, flush_interval=0.01) as reporter:
        started = time.monotonic()
        for nid in ids:
            assert apns_alert(reporter, nid) is None
        took = time.monotonic() - started
        stats = reporter.stats()
        assert stats["dropped"] == 150 and stats["queued"] == 100, stats
        assert took < 1.0, took
        server.start()
        try:
            assert reporter.flush(40)
        finally:
            server.stop()
    assert sorted(s["notification_id"] for s in stored_sends(app)) == sorted(ids[150:])


def test_reports_from_many_threads(server_factory):
    app = unique_app("com.example.py.threads")
    key, server = key_and_server(server_factory, app)
    ids = [str(uuid.uuid4()) for _ in range(200)]
    with Reporter(server.url, key, app, batch_size=30, flush_interval=0.01) as reporter:
        threads = [threading.Thread(target=lambda part=ids[i::4]: [apns_alert(reporter, n) for n in part])
                   for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert reporter.flush(15)
    assert sorted(s["notification_id"] for s in stored_sends(app)) == sorted(ids)


def test_sent_at_is_written_as_given(server_factory):
    app = unique_app("com.example.py.sentat")
    key, server = key_and_server(server_factory, app)
    when = dt.datetime.now(dt.timezone(dt.timedelta(hours=2))).replace(microsecond=123456)
    with Reporter(server.url, key, app) as reporter:
        nid = str(uuid.uuid4())
        reporter.fcm({"token": "fcm-token-1", "data": {"a": "b"}}, 200, '{"name":"x"}', notification_id=nid,
                     sent_at=when)
        assert reporter.flush(10)
    [send] = stored_sends(app)
    assert parse_time(send["sent_at"]) == when.replace(microsecond=123000)


def test_a_forked_worker_reports_through_its_own_thread(server_factory):
    import os
    app = unique_app("com.example.py.fork")
    key, server = key_and_server(server_factory, app)
    parent_id, child_id = str(uuid.uuid4()), str(uuid.uuid4())
    with Reporter(server.url, key, app, flush_interval=60) as reporter:
        apns_alert(reporter, parent_id)  # still queued when the worker is forked
        pid = os.fork()
        if pid == 0:  # the worker: its own thread posts both, and it exits without cleanup
            apns_alert(reporter, child_id)
            os._exit(0 if reporter.flush(10) else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert reporter.flush(10)
    counts = {}
    for send in stored_sends(app):
        counts[send["notification_id"]] = counts.get(send["notification_id"], 0) + 1
    assert counts == {parent_id: 1, child_id: 1}


def test_a_script_that_never_closes_the_reporter_still_has_its_sends_stored(server_factory):
    import subprocess
    import sys
    app = unique_app("com.example.py.exit")
    key, server = key_and_server(server_factory, app)
    nid = str(uuid.uuid4())
    script = (f"from pushledger_sender import Reporter\n"
              f"r = Reporter({server.url!r}, {key!r}, {app!r})\n"
              f"r.fcm({{'token': 'fcm-exit', 'data': {{'a': 'b'}}}}, 200, notification_id={nid!r})\n")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=15)
    assert [s["notification_id"] for s in stored_sends(app)] == [nid]
