"""Every row of the shared rule table (Tests/Fixtures/sender-fields.json), through the public API."""

import re

import pytest

from conftest import Capture, fixture, report_row
from pushledger_sender import ReportError

TABLE = fixture("sender-fields.json")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


ROWS = TABLE["rows"] + TABLE["webpush_rows"]


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_row(row):
    reporter = Capture(TABLE["app_id"])
    error = report_row(reporter, row)
    if "error" in row:
        assert isinstance(error, ReportError), error
        assert (error.code, error.field) == (row["error"]["code"], row["error"]["field"])
        assert not reporter._queue and reporter._stats["invalid"] == 1
        return
    assert error is None, error
    [(_, send)] = list(reporter._queue)
    assert UUID.match(send.pop("event_id"))
    assert send == row["send"]


def test_event_ids_are_fresh_per_attempt():
    reporter = Capture(TABLE["app_id"])
    row = TABLE["rows"][0]
    report_row(reporter, row)
    report_row(reporter, row)
    first, second = (send["event_id"] for _, send in reporter._queue)
    assert first != second


def test_naive_sent_at_is_refused():
    import datetime as dt
    reporter = Capture(TABLE["app_id"])
    error = reporter.apns("ab" * 32, {"aps": {}}, {}, 200, "", notification_id="5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77",
                          sent_at=dt.datetime(2026, 11, 30, 10))
    assert (error.code, error.field) == ("invalid_field", "sent_at")
    assert "ab" * 32 not in error.message


def test_a_refused_endpoint_is_never_in_the_message():
    reporter = Capture(TABLE["app_id"])
    endpoint = "http://push.example.net/push/v1/secret-subscription-id"
    error = reporter.webpush(endpoint, {"TTL": "60"}, 201, "", notification_id="5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77")
    assert (error.code, error.field) == ("invalid_field", "token")
    assert "secret-subscription-id" not in error.message and "push.example.net" not in error.message
