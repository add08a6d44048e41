"""The senders' guide's Python snippet (docs/integrations/senders.md), executed as it stands."""

import os
import uuid

from conftest import ROOT, create_key, stored_sends

GUIDE = ROOT / "docs" / "integrations" / "senders.md"


def block(name):
    text = GUIDE.read_text()
    opening = f"```python tested={name}\n"
    assert opening in text, f"the guide has no {name} block"
    return text.split(opening, 1)[1].split("```", 1)[0]


def test_the_guides_one_call_per_provider(server_factory, monkeypatch):
    app = "com.example.shop"
    key = create_key(app)
    server = server_factory()
    monkeypatch.setitem(os.environ, "PUSHLEDGER_URL", server.url)
    monkeypatch.setitem(os.environ, "PUSHLEDGER_SENDS_KEY", key)
    apns_nid, fcm_nid = str(uuid.uuid4()), str(uuid.uuid4())
    scope = {"token": "ef" * 32, "payload": {"aps": {"alert": "Out for delivery", "mutable-content": 1}},
             "headers": {"apns-push-type": "alert", "apns-priority": "10"}, "status": 200, "body": "",
             "notification_id": apns_nid, "message": {"token": "fcm-token-guide-python", "data": {"order": "42"}},
             "fcm_notification_id": fcm_nid}
    exec(compile(block("python"), str(GUIDE), "exec"), scope)
    stored = {s["notification_id"]: s for s in stored_sends(app)}
    assert (stored[apns_nid]["push_type"], stored[apns_nid]["priority"], stored[apns_nid]["channel"]) == (
        "alert", 10, "orders")
    assert (stored[fcm_nid]["status"], stored[fcm_nid]["token"]) == (200, "fcm-token-guide-python")
