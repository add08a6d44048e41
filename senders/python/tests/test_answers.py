"""What the reporter does with each answer of upload-answers.json, against a scripted stand-in:
the row's answer first, then PushLedger's 200 for whatever comes next."""

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import fixture
from pushledger_sender import Reporter

ANSWERS = fixture("upload-answers.json")
NOTIFICATION_ID = "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77"
OK = {"status": 200, "content_type": "application/json", "body": '{"accepted":2,"duplicates":0,"rejected":[]}'}


class Scripted(BaseHTTPRequestHandler):
    script = []
    requests = []

    def do_POST(self):  # noqa: N802 - the http.server hook's name
        body = json.loads(gzip.decompress(self.rfile.read(int(self.headers["Content-Length"]))))
        Scripted.requests.append((time.monotonic(), self.headers.get("Authorization"),
                                  [s["event_id"] for s in body["sends"]]))
        answer = Scripted.script.pop(0) if Scripted.script else OK
        text = answer["body"].encode()
        self.send_response(answer["status"])
        if answer["content_type"] is not None:
            self.send_header("Content-Type", answer["content_type"])
        if answer.get("retry_after"):
            self.send_header("Retry-After", answer["retry_after"])
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def stand_in():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.mark.parametrize("row", ANSWERS["rows"], ids=lambda r: f'{r["status"]}-{r["content_type"]}-{r["outcome"]}')
def test_the_reporter_follows_each_answer(stand_in, row):
    Scripted.script, Scripted.requests = [row], []
    with Reporter(stand_in, "pl_key", "com.example.shop", batch_size=2, flush_interval=0.01,
                  close_timeout=0.1) as reporter:
        for _ in range(2):
            reporter.fcm({"token": "t", "data": {"k": "v"}}, 200, notification_id=NOTIFICATION_ID)
        drained = reporter.flush(1 if row["outcome"] == "unauthorized" else 8)
        stats = reporter.stats()
    first = Scripted.requests[0]
    assert first[1] == "Bearer pl_key" and len(first[2]) == 2
    later = Scripted.requests[1:]
    outcome = row["outcome"]
    if outcome in ("stored", "refused"):
        assert drained and not later
        assert stats["dropped"] == (2 if outcome == "refused" else 0)
    elif outcome == "split":
        assert drained and [len(r[2]) for r in later] == [1, 1] and later[0][2] + later[1][2] == first[2]
    elif outcome == "unauthorized":
        assert not drained and not later and stats["queued"] == 2 and stats["unauthorized"] == 1
    else:  # retry, unexpected: the same sends again, after Retry-After when given
        assert drained and stats["retries"] == 1 and later[0][2] == first[2] and stats["dropped"] == 0
        waited = later[0][0] - first[0]
        if row.get("retry_after"):
            assert waited >= float(row["retry_after"]) - 0.05, waited
        else:
            assert 0.2 <= waited < 2, waited
