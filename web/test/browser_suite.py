"""The browser SDK in a real browser: Debian's headless Chromium, driven over the DevTools protocol, runs the
suite's page and service worker (web/test/browser/) from a static server on 127.0.0.1, against a real
`pushledger serve` on the cluster DATABASE_URL names (PUSHLEDGER_BIN: the server binary). The page's origin and
the server's differ by port, so every upload goes through CORS. Postgres is read with psql: every event the
page and the worker queued must be stored exactly once. Prints one line per test and
"web-browser: N passed, N failed"; exits 1 when a test failed.

Run by scripts/web.sh test, which starts the cluster.
"""
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from cdp import Browser, CDPError  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("PUSHLEDGER_BIN", os.path.join(ROOT, ".build", "debug", "pushledger"))
DATABASE_URL = os.environ["DATABASE_URL"]
APP = f"com.example.web.r{uuid.uuid4().hex[:8]}"
EVENT_TABLES = ["settings_snapshots", "permission_prompts", "experiment_exposures", "token_registrations",
                "notification_receipts", "notification_opens"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sql(query):
    out = subprocess.run(["psql", DATABASE_URL, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", query],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


class StaticFiles(http.server.SimpleHTTPRequestHandler):
    """/pushledger/ is web/ (the SDK as a site copies it), /app/ the suite's page and worker."""

    extensions_map = {".js": "text/javascript", ".mjs": "text/javascript", ".html": "text/html", "": "text/plain"}

    def translate_path(self, path):
        path = path.split("?", 1)[0]
        for prefix, folder in (("/pushledger/", "web"), ("/app/", "web/test/browser")):
            if path.startswith(prefix):
                name = os.path.normpath(path[len(prefix):]).lstrip("/")
                if name.startswith(".."):
                    break
                return os.path.join(ROOT, folder, name)
        return os.path.join(ROOT, "web", "test", "browser", "missing")

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


class Server:
    """`pushledger serve` on a port of its own, stoppable and restartable on the same port."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None

    def start(self):
        # --max-events 4: a flush of more events is answered 413 and must split its batch.
        self.process = subprocess.Popen([BIN, "serve", "--listen", f"127.0.0.1:{self.port}", "--max-events", "4"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"{self.url}/readyz", timeout=1).status == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("pushledger serve did not become ready")

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=20)
            self.process = None


class Chromium:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="pushledger-web-")
        self.process = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", "--no-first-run", "--no-default-browser-check", "--disable-gpu",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        active = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (os.path.exists(active) and len(open(active).read().split()) >= 2):
            if time.time() > deadline or self.process.poll() is not None:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.05)
        port, path = open(active).read().split()[:2]
        self.cdp = Browser(f"ws://127.0.0.1:{port}{path}")

    def close(self):
        try:
            self.cdp.send("Browser.close", timeout=5)
        except CDPError:
            pass
        self.cdp.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser, url):
        self.cdp = browser.cdp
        self.target = self.cdp.send("Target.createTarget", {"url": url})["targetId"]
        self.session = self.cdp.send("Target.attachToTarget", {"targetId": self.target, "flatten": True})["sessionId"]
        # The first evaluations may land in about:blank's context, destroyed by the navigation: ask again.
        deadline = time.time() + 30
        while True:
            try:
                if self.evaluate("typeof window.T === 'object'", timeout=5):
                    return
            except CDPError:
                pass
            if time.time() > deadline:
                raise AssertionError("the suite's page never became ready")
            time.sleep(0.05)

    def evaluate(self, expression, timeout=30, gesture=False):
        result = self.cdp.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                    "returnByValue": True, "userGesture": gesture},
                               session=self.session, timeout=timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise AssertionError(f"{expression}: {details.get('exception', {}).get('description') or details['text']}")
        return result["result"].get("value")

    def call(self, name, *args, timeout=30):
        return self.evaluate(f"T.{name}(...{json.dumps(list(args))})", timeout=timeout)

    def worker(self, op, timeout=30, **args):
        answer = self.evaluate(f"T.worker({json.dumps(op)}, {json.dumps(args)})", timeout=timeout)
        if "error" in answer:
            raise AssertionError(f"worker {op}: {answer['error']}")
        return answer["result"]

    def close(self):
        self.cdp.send("Target.closeTarget", {"targetId": self.target})


def wait_until(what, predicate, timeout=20):
    deadline = time.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        time.sleep(0.1)


class Suite:
    def __init__(self):
        self.key = subprocess.run([BIN, "keys", "create", "--app", APP, "--scope", "telemetry"], check=True,
                                  capture_output=True, text=True).stdout.strip()
        self.server = Server()
        self.server.start()
        self.static = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StaticFiles)
        threading.Thread(target=self.static.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.static.server_address[1]}"
        query = urllib.parse.urlencode({"endpoint": self.server.url, "key": self.key, "app": APP})
        self.page_url = f"{self.origin}/app/index.html?{query}"
        self.browser = Chromium()
        self.cdp = self.browser.cdp
        self.page = None
        self.recorded = set()  # every event id the page and the worker queued, gathered before pages close
        self.notifications = {}

    def close(self):
        for step in (lambda: self.browser.close(), self.server.stop, self.static.shutdown):
            try:
                step()
            except Exception:  # noqa: BLE001 - tearing down: keep going
                pass

    # -- helpers --

    def set_permission(self, setting):
        self.cdp.send("Browser.setPermission", {"permission": {"name": "notifications"}, "setting": setting,
                                                "origin": self.origin})

    def open_page(self):
        self.page = Page(self.browser, self.page_url)
        installation = self.page.call("installationId")
        # One browser profile on one origin is one installation, whatever the page loads.
        assert getattr(self, "installation_id", installation) == installation
        self.installation_id = installation
        return self.page

    def gather(self):
        """The ids queued so far by the page (this load) and the worker."""
        self.recorded |= set(self.page.call("recorded")) | set(self.page.worker("recorded"))

    def registration_id(self):
        self.cdp.send("ServiceWorker.enable", session=self.page.session)
        scope = f"{self.origin}/app/"
        params = self.cdp.wait_event("ServiceWorker.workerRegistrationUpdated",
                                     lambda p: any(r["scopeURL"] == scope and not r["isDeleted"]
                                                   for r in p["registrations"]))
        return next(r["registrationId"] for r in params["registrations"] if r["scopeURL"] == scope)

    def push(self, payload):
        self.cdp.send("ServiceWorker.deliverPushMessage", {"origin": self.origin,
                                                          "registrationId": self.registration,
                                                          "data": json.dumps(payload)}, session=self.page.session)

    def drained(self):
        self.page.call("flush")
        return self.page.call("pending") == 0

    def rows(self, query):
        return sql(query.replace("{app}", APP).replace("{installation}", self.installation_id))

    # -- tests, in order: each builds on the browser state the ones before left --

    def test_granted_snapshot_and_prompt(self):
        self.cdp.send("Browser.grantPermissions", {"origin": self.origin, "permissions": ["notifications"]})
        page = self.open_page()
        self.registration = self.registration_id()
        assert page.call("permission") == "granted"
        assert page.call("request", "first_screen") == "granted"
        page.call("primer", "settings_banner", True)
        wait_until("the snapshot and the prompts are stored", self.drained)
        snapshots = self.rows("select authorization_status, push_permission_state, display_mode, subscription "
                              "from settings_snapshots where app_id = '{app}' and installation_id = '{installation}'")
        assert ["authorized", "granted", "browser", "none"] in snapshots, snapshots
        prompts = self.rows("select placement, prompt, result from permission_prompts where app_id = '{app}' "
                            "order by occurred_at")
        assert prompts == [["first_screen", "system", "already_determined"], ["settings_banner", "primer", "granted"],
                           ["settings_banner", "system", "already_determined"]], prompts

    def test_denied_snapshot(self):
        self.set_permission("denied")
        try:
            assert self.page.call("permission") == "denied"
            self.page.call("settings")
            self.page.call("request", "after_first_order")
            wait_until("the denied snapshot is stored", self.drained)
        finally:
            self.set_permission("granted")
        assert ["denied"] in self.rows("select authorization_status from settings_snapshots where app_id = '{app}'")
        assert ["after_first_order", "already_determined"] in self.rows(
            "select placement, result from permission_prompts where app_id = '{app}'")

    def test_prompt_closed_without_a_choice_is_dismissed(self):
        # Headless Chromium shows no prompt: requestPermission resolves "default" at once, as a closed prompt does.
        self.set_permission("prompt")
        try:
            assert self.page.call("permission") == "default"
            assert self.page.evaluate("T.request('checkout')", gesture=True) == "default"
            wait_until("the prompt is stored", self.drained)
        finally:
            self.set_permission("granted")
        assert self.rows("select prompt, result from permission_prompts where app_id = '{app}' "
                         "and placement = 'checkout'") == [["system", "dismissed"]]
        assert ["not_determined", "prompt"] in self.rows(
            "select authorization_status, push_permission_state from settings_snapshots where app_id = '{app}'")

    def test_subscribe_refused_without_permission(self):
        self.set_permission("denied")
        try:
            answer = self.page.call("subscribe", 5000)
        finally:
            self.set_permission("granted")
        assert set(answer) == {"error"} and answer["error"]["name"] == "NotAllowedError", answer
        wait_until("the snapshot after the refused subscribe is stored", self.drained)
        assert self.rows("select count(*) from token_registrations where app_id = '{app}'") == [["0"]]

    def test_subscribe_without_a_push_service_times_out(self):
        # Chromium's push service is FCM, unreachable here: pushManager.subscribe does not settle.
        started = time.time()
        answer = self.page.call("subscribe", 1500)
        assert answer == {"error": {"name": "TimeoutError",
                                    "message": "no answer from the push service within 1500 ms"}}, answer
        assert time.time() - started < 10
        wait_until("the snapshot after the timeout is stored", self.drained)
        assert self.rows("select count(*) from token_registrations where app_id = '{app}'") == [["0"]]

    def test_invalid_event_dropped_locally(self):
        answer = self.page.call("invalid")
        message = 'invalid field "placement": expected a slug of 1 to 64 characters a-z, 0-9 or _'
        assert answer == {"dropped": {"code": "invalid_field", "message": message}}, answer
        assert self.page.call("pending") == 0

    def test_push_received_displayed_and_silent(self):
        shown, silent = str(uuid.uuid4()), str(uuid.uuid4())
        self.notifications.update(shown=shown, silent=silent)
        self.push({"notification_id": shown, "title": "Your order is on its way", "body": "Arriving at 14:00",
                   "channel": "orders"})
        wait_until("the worker records the receipt", lambda: [shown, True] in self.page.worker("received"))
        self.push({"notification_id": silent, "silent": True})
        wait_until("the worker records the silent receipt", lambda: [silent, False] in self.page.worker("received"))
        assert shown in self.page.worker("shown")
        wait_until("both receipts are stored", lambda: self.rows(
            f"select count(*) from notification_receipts where notification_id in ('{shown}', '{silent}')") == [["2"]])
        receipts = dict(self.rows(f"select notification_id, displayed from notification_receipts "
                                  f"where notification_id in ('{shown}', '{silent}')"))
        assert receipts == {shown: "t", silent: "f"}, receipts
        assert self.rows(f"select channel, platform from notification_receipts where notification_id = '{shown}'") == [
            ["orders", "web"]]

    def shown_notification(self, title):
        """A notification the worker showed for a new push (its receipt recorded): its notification id."""
        nid = str(uuid.uuid4())
        self.push({"notification_id": nid, "title": title, "channel": "stock"})
        wait_until("the receipt is recorded", lambda: [nid, True] in self.page.worker("received"))
        return nid

    def test_module_worker_records_receipts(self):
        scope = self.page.call("registerModuleWorker")
        assert scope == f"{self.origin}/app/module/", scope
        params = self.cdp.wait_event("ServiceWorker.workerRegistrationUpdated",
                                     lambda p: any(r["scopeURL"] == scope and not r["isDeleted"]
                                                   for r in p["registrations"]))
        registration = next(r["registrationId"] for r in params["registrations"] if r["scopeURL"] == scope)
        nid = str(uuid.uuid4())
        self.cdp.send("ServiceWorker.deliverPushMessage", {"origin": self.origin, "registrationId": registration,
                                                          "data": json.dumps({"notification_id": nid,
                                                                              "title": "From the module worker"})},
                      session=self.page.session)
        wait_until("the module worker's receipt is stored", lambda: self.rows(
            f"select displayed from notification_receipts where notification_id = '{nid}'") == [["t"]])

    def test_click_on_an_action_and_on_the_body(self):
        action = self.notifications["shown"]
        body = self.shown_notification("Back in stock")
        self.page.worker("click", id=action, action="track_order")
        self.page.worker("click", id=body, action="")
        wait_until("both opens are stored", lambda: self.rows(
            f"select count(*) from notification_opens where notification_id in ('{action}', '{body}')") == [["2"]])
        opens = dict(self.rows(f"select notification_id, action from notification_opens "
                               f"where notification_id in ('{action}', '{body}')"))
        assert opens == {action: "track_order", body: "default"}, opens

    def test_close_records_a_dismissal(self):
        closed = self.shown_notification("Price drop")
        self.page.worker("close", id=closed)
        wait_until("the dismissal is stored beside the receipt", lambda: self.rows(
            f"select count(*) from notification_receipts where notification_id = '{closed}'") == [["2"]])
        assert self.rows(f"select displayed, dismissed from notification_receipts where notification_id = '{closed}' "
                         "order by occurred_at") == [["t", "f"], ["t", "t"]]

    def test_subscription_change_records_the_new_endpoint(self):
        endpoint = f"https://fcm.googleapis.com/fcm/send/e{uuid.uuid4().hex}:APA91bSuite"
        self.page.worker("subscriptionChange", endpoint=endpoint)
        wait_until("the new endpoint is stored", lambda: self.rows(
            "select provider, token from token_registrations where app_id = '{app}'") == [["webpush", endpoint]])
        assert self.rows("select subscription from settings_snapshots where app_id = '{app}' "
                         "order by occurred_at desc limit 1") == [["active"]]

    def test_events_survive_server_down_and_page_closed(self):
        self.server.stop()
        queued = str(uuid.uuid4())
        self.notifications["while_down"] = queued
        self.push({"notification_id": queued, "title": "Queued while the server is down"})
        self.page.call("exposure", "while_down")
        for n in range(5):  # more than --max-events: the upload after the restart must split
            self.page.call("exposure", f"while_down_{n}")
        wait_until("the worker's receipt is queued", lambda: self.page.call("pending") >= 7)
        self.gather()
        self.page.close()
        time.sleep(0.5)
        self.server.start()
        self.open_page()
        wait_until("the queue is empty after the restart", self.drained, timeout=40)
        assert self.rows(f"select count(*) from notification_receipts where notification_id = '{queued}'") == [["1"]]
        variants = {r[0] for r in self.rows("select variant from experiment_exposures where app_id = '{app}'")}
        assert {"while_down", *(f"while_down_{n}" for n in range(5))} <= variants, variants
        # The server took at most 4 events a request: the first upload of the 7 was refused 413 and split.
        assert self.rows("select count(*) > 0 from failed_events where app_id = '{app}' "
                         "and error_code = 'too_many_events'") == [["t"]]

    def test_lost_answer_resent_and_counted_once(self):
        # The answer of a stored upload is lost (the page closes while it is in flight, or the network drops):
        # the events stay queued and their second upload is answered as duplicates.
        result = self.page.evaluate("""(async () => {
            await T.exposure('answer_lost');
            const { Ledger } = globalThis.PushLedgerRuntime;
            const lossy = new Ledger({ endpoint: new URLSearchParams(location.search).get('endpoint'),
              telemetryKey: new URLSearchParams(location.search).get('key'),
              appId: new URLSearchParams(location.search).get('app'), maxAttempts: 1,
              fetch: async (url, init) => { await fetch(url, init); throw new TypeError('answer lost'); } });
            const first = await lossy.flush();
            return [first.failure && first.failure.code, await T.pending(), await T.flush()];
        })()""")
        code, pending, second = result
        assert code == "network_error" and pending >= 1, result
        assert second["duplicates"] >= 1 and second["remaining"] == 0, second
        assert self.rows("select count(*) from experiment_exposures where app_id = '{app}' "
                         "and variant = 'answer_lost'") == [["1"]]

    def test_page_closing_uploads_with_keepalive(self):
        # Recorded, then the tab closes before the one-second upload delay ends: only the pagehide keepalive
        # request can carry it, and nothing uploads before the page is opened again.
        assert self.page.call("pending") == 0
        self.page.call("exposure", "closed_at_once")
        self.gather()
        self.page.close()
        try:
            wait_until("the keepalive upload is stored", lambda: self.rows(
                "select count(*) from experiment_exposures where app_id = '{app}' "
                "and variant = 'closed_at_once'") == [["1"]], timeout=10)
        finally:
            self.open_page()

    def test_every_queued_event_stored_exactly_once(self):
        wait_until("everything is uploaded", self.drained)
        self.gather()
        union = " union all ".join(f"select event_id::text from {t} where app_id = '{APP}'" for t in EVENT_TABLES)
        stored = [r[0] for r in sql(union)]
        ids = [r[0] for r in sql(f"select event_id::text from event_ids where app_id = '{APP}'")]
        assert len(stored) == len(set(stored)), "an event stored twice"
        missing = self.recorded - set(ids)
        assert not missing, f"{len(missing)} of {len(self.recorded)} queued events never stored"
        assert set(stored) == set(ids), "event ids without their event rows"
        assert len(self.recorded) >= 20, len(self.recorded)
        version = self.cdp.send("Browser.getVersion")["product"].split("/")[1]
        browsers = self.rows("select platform, app_version, browser, browser_version from installations "
                             "where app_id = '{app}'")
        assert browsers == [["web", "1.4.0", "chrome", version]], browsers


def main():
    suite = Suite()
    passed = failed = 0
    try:
        for name in [n for n in Suite.__dict__ if n.startswith("test_")]:
            started = time.time()
            try:
                getattr(suite, name)()
                passed += 1
                print(f"ok - {name[5:]} ({time.time() - started:.1f} s)", flush=True)
            except Exception as error:  # noqa: BLE001 - every failure is reported, then the next test runs
                failed += 1
                print(f"not ok - {name[5:]}: {error}", flush=True)
                if os.environ.get("PUSHLEDGER_WEB_TRACE"):
                    traceback.print_exc()
    finally:
        suite.close()
    print(f"web-browser: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
