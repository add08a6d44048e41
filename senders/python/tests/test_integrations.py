"""The aioapns and firebase-admin integrations, each client talking to a local stand-in for APNs or
FCM, and every attempt stored by a real `pushledger serve`."""

import asyncio
import datetime as dt
import ipaddress
import json
import ssl
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import create_key, stored_sends, unique_app

from pushledger_sender import Reporter

aioapns = pytest.importorskip("aioapns")
firebase_admin = pytest.importorskip("firebase_admin")


def self_signed(tmp_path):
    """A certificate for 127.0.0.1 and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=1))
            .not_valid_after(now + dt.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file, key


# The stand-ins answer by the token's first two characters, as the real services would.
APNS_ANSWERS = {"aa": (200, b""), "bb": (410, b'{"reason":"Unregistered","timestamp":1796000000000}'),
                "cc": (400, b'{"reason":"BadDeviceToken"}')}


async def apns_stand_in(cert_file, key_file, seen):
    """An HTTP/2 server over TLS that answers /3/device/TOKEN like APNs."""
    from h2.config import H2Configuration
    from h2.connection import H2Connection
    from h2.events import RequestReceived, StreamEnded

    class Protocol(asyncio.Protocol):
        def connection_made(self, transport):
            self.transport = transport
            self.conn = H2Connection(H2Configuration(client_side=False))
            self.conn.initiate_connection()
            self.transport.write(self.conn.data_to_send())
            self.headers = {}

        def data_received(self, data):
            for event in self.conn.receive_data(data):
                if isinstance(event, RequestReceived):
                    self.headers[event.stream_id] = {k.decode(): v.decode() for k, v in event.headers}
                elif isinstance(event, StreamEnded):
                    headers = self.headers.pop(event.stream_id)
                    seen.append(headers)
                    token = headers[":path"].rsplit("/", 1)[-1]
                    status, body = APNS_ANSWERS[token[:2]]
                    self.conn.send_headers(event.stream_id, [(":status", str(status)),
                                                             ("apns-id", headers["apns-id"])],
                                           end_stream=not body)
                    if body:
                        self.conn.send_data(event.stream_id, body, end_stream=True)
            self.transport.write(self.conn.data_to_send())

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    context.set_alpn_protocols(["h2"])
    return await asyncio.get_running_loop().create_server(Protocol, "127.0.0.1", 0, ssl=context)


def test_aioapns_attempts_are_reported(tmp_path, server_factory, monkeypatch):
    from aioapns import APNs, NotificationRequest, PushType
    from aioapns.connection import APNsProductionClientProtocol
    from cryptography.hazmat.primitives import serialization
    from pushledger_sender.aioapns import ReportingAPNs

    app = unique_app("com.example.py.aioapns")
    key = create_key(app)
    server = server_factory()
    cert_file, key_file, _ = self_signed(tmp_path)
    signing = __import__("cryptography.hazmat.primitives.asymmetric.ec", fromlist=["ec"])
    jwt_key = signing.generate_private_key(signing.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    nids = {prefix: str(uuid.uuid4()) for prefix in APNS_ANSWERS}
    seen = []

    async def scenario():
        stand_in = await apns_stand_in(cert_file, key_file, seen)
        monkeypatch.setattr(APNsProductionClientProtocol, "APNS_SERVER", "127.0.0.1")
        monkeypatch.setattr(APNsProductionClientProtocol, "APNS_PORT", stand_in.sockets[0].getsockname()[1])
        client_context = ssl.create_default_context(cafile=str(cert_file))
        client = APNs(key=jwt_key, key_id="KEYID12345", team_id="TEAMID1234", topic="com.example.shop",
                      ssl_context=client_context)
        apns = ReportingAPNs(client, reporter)
        for prefix, nid in nids.items():
            payload = {"aps": {"alert": "Hi", "mutable-content": 1}, "notification_id": nid}
            request = NotificationRequest(
                device_token=prefix * 32, message=payload,
                time_to_live=3600, priority=10, collapse_key="order-42", push_type=PushType.ALERT)
            await apns.send_notification(request, channel="orders")
        stand_in.close()

    with Reporter(server.url, key, app) as reporter:
        asyncio.run(scenario())
        assert reporter.flush(10)
    assert len(seen) == 3
    stored = {s["notification_id"]: s for s in stored_sends(app)}
    assert set(stored) == set(nids.values())
    ok, gone, bad = (stored[nids[p]] for p in ("aa", "bb", "cc"))
    for send in (ok, gone, bad):
        assert (send["push_type"], send["priority"], send["collapse_id"], send["environment"]) == (
            "alert", 10, "order-42", "production")
        sent_at = dt.datetime.fromisoformat(send["sent_at"])
        expires_at = dt.datetime.fromisoformat(send["expires_at"])
        assert 3599 <= (expires_at - sent_at).total_seconds() <= 3601
        assert send["latency_ms"] is not None and send["channel"] == "orders" and send["mutable_content"] is True
    assert (ok["status"], ok["reason"], ok["response_body"]) == (200, None, "")
    assert (gone["status"], gone["reason"]) == (410, "Unregistered")
    assert dt.datetime.fromisoformat(gone["unregistered_at"]) == dt.datetime(2026, 11, 30, 0, 53, 20,
                                                                             tzinfo=dt.timezone.utc)
    assert (bad["status"], bad["reason"]) == (400, "BadDeviceToken")
    assert ok["apns_id"] == seen[0]["apns-id"]


class FCMStandIn(BaseHTTPRequestHandler):
    """Answers messages:send like FCM HTTP v1, by the token's first word."""
    messages = []

    def do_POST(self):  # noqa: N802 - the http.server hook's name
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["message"]
        FCMStandIn.messages.append(message)
        if (message.get("token") or message.get("fid")).startswith("gone"):
            status, body = 404, {"error": {"code": 404, "status": "NOT_FOUND", "message": "not found",
                                           "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                                                        "errorCode": "UNREGISTERED"}]}}
        else:
            status, body = 200, {"name": "projects/shop/messages/0:1"}
        text = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def log_message(self, *args):
        pass


@pytest.mark.filterwarnings("ignore:Message.token is deprecated")  # registration tokens are still what most send to
def test_firebase_admin_attempts_are_reported(server_factory):
    from firebase_admin import credentials, messaging
    from google.auth.credentials import AnonymousCredentials
    from pushledger_sender import firebase

    class Anonymous(credentials.Base):
        def get_credential(self):
            return AnonymousCredentials()

    app = unique_app("com.example.py.firebase")
    key = create_key(app)
    server = server_factory()
    fcm = ThreadingHTTPServer(("127.0.0.1", 0), FCMStandIn)
    threading.Thread(target=fcm.serve_forever, daemon=True).start()
    fb_app = firebase_admin.initialize_app(Anonymous(), {"projectId": "shop"}, name=f"test-{uuid.uuid4()}")
    try:
        service = messaging._get_messaging_service(fb_app)
        service._fcm_url = f"http://127.0.0.1:{fcm.server_port}/v1/projects/shop/messages:send"
        data_nid, notification_nid, gone_nid = (str(uuid.uuid4()) for _ in range(3))
        with Reporter(server.url, key, app) as reporter:
            firebase.send(messaging.Message(fid="ok-data", data={"notification_id": data_nid, "channel": "sync"},
                                            android=messaging.AndroidConfig(ttl=dt.timedelta(seconds=60),
                                                                            priority="high")),
                          reporter, app=fb_app)
            firebase.send(messaging.Message(token="ok-notification", notification=messaging.Notification(title="Hi"),
                                            android=messaging.AndroidConfig(collapse_key="order-42",
                                                notification=messaging.AndroidNotification(channel_id="orders"))),
                          reporter, app=fb_app, notification_id=notification_nid, campaign="spring")
            with pytest.raises(messaging.UnregisteredError):
                firebase.send(messaging.Message(token="gone-1", data={"notification_id": gone_nid}), reporter,
                              app=fb_app, channel="orders")
            assert reporter.flush(10)
    finally:
        firebase_admin.delete_app(fb_app)
        fcm.shutdown()
    assert len(FCMStandIn.messages) == 3
    stored = {s["notification_id"]: s for s in stored_sends(app)}
    data, notification, gone = stored[data_nid], stored[notification_nid], stored[gone_nid]
    assert (data["status"], data["channel"], data["priority"], data["token"]) == (200, "sync", 10, "ok-data")
    expires = dt.datetime.fromisoformat(data["expires_at"]) - dt.datetime.fromisoformat(data["sent_at"])
    assert expires == dt.timedelta(seconds=60)
    assert (notification["channel"], notification["collapse_id"], notification["campaign"]) == (
        "orders", "order-42", "spring")
    assert (gone["status"], gone["reason"], gone["token"]) == (404, "UNREGISTERED", "gone-1")
    assert json.loads(gone["response_body"])["error"]["status"] == "NOT_FOUND"
    kinds = (data["message_kind"], notification["message_kind"], gone["message_kind"])
    assert kinds == ("data", "notification", "data")
