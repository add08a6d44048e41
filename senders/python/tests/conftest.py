"""Shared test helpers: the fixtures under Tests/Fixtures, a real `pushledger serve`, and psql."""

import collections
import copy
import datetime as dt
import json
import os
import pathlib
import signal
import subprocess
import threading
import time
import urllib.request
import uuid

import pytest

from pushledger_sender import Reporter

ROOT = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "Tests" / "Fixtures"
BASE_SENT_S = 1796032800  # 2026-11-30T10:00:00Z, the rule table's clock


RUN = uuid.uuid4().hex[:8]


def unique_app(app):
    """An app id of this run alone, so that a database kept between runs holds no earlier sends of it."""
    return f"{app}.r{RUN}"


def fixture(name):
    return json.loads((FIXTURES / name).read_text())


def expand(container, key):
    """A fixture value, or the long one its ``KEY_repeat`` spells out (prefix, repeat × times, suffix)."""
    if key in container:
        return container[key]
    spec = container.get(key + "_repeat")
    if spec is None:
        return None
    return spec.get("prefix", "") + spec["repeat"] * spec["times"] + spec.get("suffix", "")


def parse_time(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def shifted(row, seconds):
    """The row moved ``seconds`` later: sent_at, apns-expiration headers, and the expected
    sent_at/expires_at (the server refuses sends older than 30 days)."""
    row = copy.deepcopy(row)

    def move_header(headers):
        value = headers.get("apns-expiration")
        if isinstance(value, str) and value.isdigit() and value != "0":
            headers["apns-expiration"] = str(int(value) + seconds)

    def move_time(holder, key):
        if holder.get(key):
            moved = parse_time(holder[key]) + dt.timedelta(seconds=seconds)
            holder[key] = moved.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moved.microsecond // 1000:03d}Z"

    request = row["request"]
    move_header(request.get("headers") or {})
    message = request.get("message", {})
    message = message.get("message", message)
    move_header(message.get("apns", {}).get("headers", {}))
    move_time(row["report"], "sent_at")
    if "send" in row:
        move_time(row["send"], "sent_at")
        move_time(row["send"], "expires_at")
    return row


def report_row(reporter, row):
    """Reports one rule-table row through the public API; the ReportError or None."""
    report, answer, request = row["report"], row["answer"], row["request"]
    common = dict(notification_id=report.get("notification_id"), channel=expand(report, "channel"),
                  campaign=report.get("campaign"), sent_at=parse_time(report["sent_at"]))
    body = expand(answer, "body")
    if row["provider"] == "webpush":
        return reporter.webpush(expand(request, "endpoint"), request["headers"], answer["status"], body, **common)
    if row["provider"] == "apns":
        return reporter.apns(request["token"], request["payload"], request["headers"], answer["status"], body,
                             apns_id=answer["headers"].get("apns-id"), **common)
    return reporter.fcm(request["message"], answer["status"], body, **common)


class Capture(Reporter):
    """A reporter that keeps what it would post (no thread, no server): the sends the public calls make."""

    def __init__(self, app_id):  # noqa: D107 - the real constructor starts a thread; the rules need none
        self._app_id = app_id
        self._default_channel = "default"
        self._cond = threading.Condition()
        self._queue = collections.deque()
        self._next_seq = 0
        self._limit = 500
        self._max_queue = 100
        self._closing = False
        self._stats = collections.Counter()


def env(name):
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run the suite with scripts/senders.sh test")
    return value


def pushledger(*args, check=True):
    result = subprocess.run([env("PUSHLEDGER_BIN"), *args], capture_output=True, text=True, check=False)
    if check and result.returncode != 0:
        pytest.fail(f"pushledger {args[0]} failed: {result.stderr.strip()[-400:]}")
    return result.stdout.strip()


def create_key(app, *extra):
    return pushledger("keys", "create", "--app", app, "--scope", "sends", *extra)


def free_port():
    return int(subprocess.run([str(ROOT / "scripts" / "free-port.sh")], capture_output=True, text=True,
                              check=True).stdout.strip())


def sql(query):
    """Runs one query; its single JSON value."""
    out = subprocess.run(["psql", env("DATABASE_URL"), "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", query],
                         capture_output=True, text=True, check=True).stdout.strip()
    return json.loads(out) if out else None


def stored_sends(app):
    return sql(f"select coalesce(json_agg(s), '[]') from sends s where app_id = '{app}'")


def send_columns():
    return set(sql("select json_agg(column_name) from information_schema.columns where table_name = 'sends'"))


class Server:
    """`pushledger serve` on a loopback port of its own; restartable on the same port."""

    def __init__(self, *args):
        self.port = free_port()
        self.args = args
        self.process = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        self.process = subprocess.Popen(
            [env("PUSHLEDGER_BIN"), "serve", "--listen", f"127.0.0.1:{self.port}", *self.args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=1) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        pytest.fail("pushledger serve did not become ready")

    def stop(self, sig=signal.SIGTERM):
        if self.process is not None:
            self.process.send_signal(sig)
            self.process.wait(timeout=20)
            self.process = None


@pytest.fixture
def server_factory():
    servers = []

    def make(*args):
        server = Server(*args)
        servers.append(server)
        return server.start()

    yield make
    for server in servers:
        server.stop(signal.SIGKILL)
