"""Web Push end to end: pywebpush makes real VAPID-signed, aes128gcm-encrypted requests (the guide's
push_web) to a local stand-in push service over TLS, which checks each request as a push service would
and answers by the endpoint's path; every attempt is reported with Reporter.webpush to a real
`pushledger serve`, and the same attempts, derived for a second app, are loaded with
`pushledger import sends`. Both apps' sends are then read back from PostgreSQL and the invalid-token feed.

The endpoints have the real push services' hosts (so the server derives each push service): the test's
resolver sends those hosts to the stand-in, whose certificate a throwaway CA signs for them."""

import base64
import datetime as dt
import json
import re
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
import requests
from conftest import ROOT, Capture, create_key, env, free_port, sql, stored_sends, unique_app
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from py_vapid import Vapid
from test_guide import GUIDE, block

from pushledger_sender import Reporter

# The push services' hosts (contract v1.3) and what the server derives from each; 127.0.0.1 is "other".
HOSTS = {"fcm.googleapis.com": "fcm", "updates.push.services.mozilla.com": "mozilla", "web.push.apple.com": "apple",
         "wns2-par02p.notify.windows.com": "windows"}
SUBJECT = "mailto:push@example.com"

# What the stand-in answers, chosen by the NNN- at the start of the endpoint's last path segment or token,
# in each push service's style: (status, body, headers). The reason the library reads from each is below.
ANSWERS = {
    "201": (201, b"", {"Location": "https://push.example/message/1"}),
    "404": (404, b"push subscription not found\n", {}),
    "410": (410, b'{"code":410,"errno":106,"error":"Gone","message":"Request did not validate No such subscription"}',
            {"Content-Type": "application/json"}),
    "413": (413, b'{"code":413,"errno":104,"error":"Payload Too Large","message":"Payload too large"}',
            {"Content-Type": "application/json"}),
    "429": (429, b"Too many requests, slow down\n", {"Retry-After": "30"}),
}
REASONS = {"201": None, "404": "push subscription not found", "410": "Gone", "413": "Payload Too Large",
           "429": "Too many requests, slow down"}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """One browser's push subscription: the endpoint and the keys PushManager.subscribe makes (a P-256 key
    pair whose public half is p256dh, and a 16-byte auth secret)."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = uuid.uuid4().bytes
        public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)
        self.subscription = {"endpoint": endpoint, "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}

    def decrypt(self, body):
        return http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")


def check_vapid(authorization, origin):
    """The problems of a VAPID Authorization header (RFC 8292: vapid t=JWT, k=public key) for ``origin``."""
    match = re.fullmatch(r"vapid t=([\w-]+\.[\w-]+\.[\w-]+),\s*k=([\w-]+)", authorization or "")
    if not match:
        return ["no vapid t=…, k=… Authorization"]
    token, key = match.groups()
    head, claims, signature = token.split(".")
    problems = []
    if json.loads(unb64url(head)).get("alg") != "ES256":
        problems.append("the JWT is not ES256")
    raw = unb64url(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    try:
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        problems.append("the JWT's signature does not verify with k")
    claims = json.loads(unb64url(claims))
    if claims.get("aud") != origin:
        problems.append(f"aud {claims.get('aud')} is not {origin}")
    if not time.time() < claims.get("exp", 0) <= time.time() + 86400:
        problems.append("exp is not within 24 hours")
    if not str(claims.get("sub", "")).startswith("mailto:"):
        problems.append("no mailto: sub")
    return problems


class PushService:
    """A stand-in push service on 127.0.0.1 over TLS: checks each request as a push service would (VAPID,
    aes128gcm, TTL), decrypts it with the browser's keys, and answers by the endpoint's path."""

    def __init__(self, cert, key, browsers):
        self.seen = []
        self.problems = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                endpoint = f"https://{self.headers['Host']}{self.path}"
                problems = check_vapid(self.headers.get("Authorization"), f"https://{self.headers['Host']}")
                if self.headers.get("Content-Encoding") != "aes128gcm":
                    problems.append("Content-Encoding is not aes128gcm")
                if not re.fullmatch(r"[0-9]+", self.headers.get("TTL", "")):
                    problems.append("no TTL header")
                browser = browsers.get(endpoint)
                payload = None
                try:
                    payload = json.loads(browser.decrypt(body)) if browser else None
                except Exception as error:  # noqa: BLE001 - what failed is the finding
                    problems.append(f"the payload does not decrypt ({type(error).__name__})")
                if browser is None:
                    problems.append("an endpoint no browser subscribed")
                service.seen.append({"endpoint": endpoint, "ttl": self.headers.get("TTL"),
                                     "k": (self.headers.get("Authorization") or "").rpartition("k=")[2],
                                     "topic": self.headers.get("Topic"), "urgency": self.headers.get("Urgency"),
                                     "payload": payload})
                service.problems.extend(problems)
                status, answer, headers = (400, b"bad request\n", {}) if problems else \
                    ANSWERS[re.search(r"(\d{3})-[\w-]+$", endpoint).group(1)]
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def tls(tmp_path):
    """A throwaway CA and the stand-in's certificate for the push services' hosts and 127.0.0.1."""
    sans = [f"DNS:{host}" for host in HOSTS] + ["IP:127.0.0.1"]
    subprocess.run([str(ROOT / "scripts" / "test-ca.sh"), str(tmp_path), "PushLedger web push test CA", *sans],
                   check=True)
    return tmp_path / "ca.pem", tmp_path / "server.pem", tmp_path / "server.key"


class Tee:
    """Reports through the real reporter and keeps each report's arguments, to replay them for the import."""

    def __init__(self, reporter):
        self.reporter = reporter
        self.calls = []

    def webpush(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.reporter.webpush(*args, **kwargs)


def invalid_feed(server_url, key, expected, deadline_s=15):
    """The app's invalid-token feed, one walk, repeated until it holds ``expected`` tokens or the deadline
    passes (the feed serves what committed below the oldest transaction still running)."""
    end = time.monotonic() + deadline_s
    while True:
        tokens, cursor = [], None
        while True:
            query = "limit=500" + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else "")
            request = urllib.request.Request(f"{server_url}/v1/tokens/invalid?{query}",
                                             headers={"Authorization": f"Bearer {key}"})
            with urllib.request.urlopen(request, timeout=10) as answer:
                page = json.loads(answer.read())
            tokens += page["tokens"]
            cursor = page["next_cursor"]
            if len(page["tokens"]) < 500:
                break
        if len(tokens) >= expected or time.monotonic() > end:
            return tokens
        time.sleep(0.2)


def test_pywebpush_requests_reported_imported_and_stored(server_factory, tls, tmp_path, monkeypatch):
    ca, cert, cert_key = tls
    unanswered_port = free_port()  # nothing listens there: the push service that never answers
    # Each attempt: (endpoint host, answer, TTL, Topic, Urgency). Every push service, every answer, no answer.
    plan = [("fcm.googleapis.com", "201", 86400, "order-42", "high"), ("fcm.googleapis.com", "201", 0, None, None),
            ("fcm.googleapis.com", "404", 3600, None, "normal"), ("fcm.googleapis.com", "410", 60, "Zz09_-", None),
            ("updates.push.services.mozilla.com", "201", 3600, None, "normal"),
            ("updates.push.services.mozilla.com", "410", 600, "restock", "low"),
            ("updates.push.services.mozilla.com", "413", 60, None, None),
            ("web.push.apple.com", "201", 600, None, "very-low"), ("web.push.apple.com", "429", 60, None, "high"),
            ("wns2-par02p.notify.windows.com", "201", 2419200, "digest", "low"),
            ("127.0.0.1", "201", 120, "chat-7", None), ("127.0.0.1", "410", 120, None, None),
            ("unanswered", "000", 30, "lost", "normal")]

    browsers = {}
    service_port = None

    def endpoint(host, answer):
        """An endpoint of the push service's shape; 127.0.0.1 on the stand-in's port, or on one nobody serves."""
        authority = {"127.0.0.1": f"127.0.0.1:{service_port}", "unanswered": f"127.0.0.1:{unanswered_port}"}
        path = {"fcm.googleapis.com": "/fcm/send/", "updates.push.services.mozilla.com": "/wpush/v2/",
                "wns2-par02p.notify.windows.com": "/w/"}.get(host, "/push/")
        return f"https://{authority.get(host, host)}{path}{answer}-{uuid.uuid4().hex}"

    service = PushService(str(cert), str(cert_key), browsers)
    service_port = service.port
    # The sender's resolver: the push services' hosts are the stand-in (on 443 in the endpoints).
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in HOSTS and port == 443:
            return real_getaddrinfo("127.0.0.1", service.port, *args, **kwargs)
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    app, imported_app = unique_app("com.example.py.webpush"), unique_app("com.example.py.webpush.import")
    key, imported_key = create_key(app), create_key(imported_app)
    server = server_factory()
    vapid_key = ec.generate_private_key(ec.SECP256R1())
    vapid = Vapid.from_pem(vapid_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()))
    session = requests.Session()
    session.verify = str(ca)  # the sender trusts the test CA, as it trusts the public ones in production
    session.trust_env = False
    scope = {}
    exec(compile(block("python-webpush"), str(GUIDE), "exec"), scope)
    push_web = scope["push_web"]

    attempts = []
    # The libraries write sent_at in milliseconds: the window starts at the millisecond.
    started = dt.datetime.now(dt.timezone.utc)
    started = started.replace(microsecond=started.microsecond // 1000 * 1000)
    try:
        with Reporter(server.url, key, app) as reporter:
            tee = Tee(reporter)
            for host, answer, ttl, topic, urgency in plan:
                browser = Browser(endpoint(host, answer))
                browsers[browser.endpoint] = browser
                nid = str(uuid.uuid4())
                data = json.dumps({"notification_id": nid, "title": "Your order", "body": "Out for delivery"})
                status = push_web(tee, browser.subscription, data, vapid, {"sub": SUBJECT}, notification_id=nid,
                                  ttl=ttl, topic=topic, urgency=urgency, channel="orders", session=session)
                attempts.append({"endpoint": browser.endpoint, "nid": nid, "answer": answer, "status": status,
                                 "ttl": ttl, "topic": topic, "urgency": urgency,
                                 "service": HOSTS.get(host, "other")})
            assert reporter.flush(15), reporter.stats()
            stats = reporter.stats()
    finally:
        service.close()
    finished = dt.datetime.now(dt.timezone.utc)

    # The stand-in: every answered request was real Web Push, decrypted to the payload sent.
    assert service.problems == []
    answered = [a for a in attempts if a["answer"] != "000"]
    assert len(service.seen) == len(answered) == 12
    vapid_public = b64url(vapid_key.public_key().public_bytes(serialization.Encoding.X962,
                                                              serialization.PublicFormat.UncompressedPoint))
    for seen, attempt in zip(service.seen, answered):
        assert (seen["endpoint"], seen["k"]) == (attempt["endpoint"], vapid_public)
        assert seen["payload"]["notification_id"] == attempt["nid"]
        assert (seen["ttl"], seen["topic"], seen["urgency"]) == (str(attempt["ttl"]), attempt["topic"],
                                                                 attempt["urgency"])
    assert [a["status"] for a in attempts] == [int(a["answer"]) for a in attempts]
    assert stats["accepted"] == len(plan) and stats["invalid"] == 0, stats

    # The same reports for a second app, as NDJSON through `pushledger import sends`.
    capture = Capture(app_id=imported_app)
    for args, kwargs in tee.calls:
        assert capture.webpush(*args, **kwargs) is None
    ndjson = tmp_path / "webpush-sends.ndjson"
    ndjson.write_text("".join(json.dumps(send) + "\n" for _, send in capture._queue))
    result = subprocess.run([env("PUSHLEDGER_BIN"), "import", "sends", str(ndjson), "--app", imported_app],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-600:]

    for app_id, app_key in ((app, key), (imported_app, imported_key)):
        stored = {s["notification_id"]: s for s in stored_sends(app_id)}
        assert len(stored) == len(plan), (app_id, len(stored))
        for attempt in attempts:
            send = stored[attempt["nid"]]
            sent_at = dt.datetime.fromisoformat(send["sent_at"])
            expires_at = dt.datetime.fromisoformat(send["expires_at"])
            assert started <= sent_at <= finished
            assert (send["provider"], send["token"], send["status"], send["channel"]) == (
                "webpush", attempt["endpoint"], attempt["status"], "orders")
            assert expires_at - sent_at == dt.timedelta(seconds=attempt["ttl"]), (attempt, send)
            assert (send["collapse_id"], send["urgency"]) == (attempt["topic"], attempt["urgency"])
            assert send["reason"] == REASONS.get(attempt["answer"]), (attempt, send["reason"])
            assert send["push_service"] == attempt["service"], (attempt, send["push_service"])
        gone = sorted(a["endpoint"] for a in attempts if a["answer"] in ("404", "410"))
        feed = invalid_feed(server.url, app_key, len(gone))
        assert sorted(t["token"] for t in feed) == gone, (app_id, feed)
        assert {t["provider"] for t in feed} == {"webpush"}
        assert {t["token"]: t["status"] for t in feed} == {a["endpoint"]: a["status"] for a in attempts
                                                            if a["endpoint"] in gone}
    assert sql(f"select count(*) from sends where app_id in ('{app}', '{imported_app}')") == 2 * len(plan)
