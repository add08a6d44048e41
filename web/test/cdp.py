"""A small Chrome DevTools Protocol client over a stdlib WebSocket (RFC 6455, client side), for the browser suite.

Only what the suite needs: text frames, fragmentation, ping/pong, close. One reader thread routes answers to their
callers by id and keeps events for wait_event.
"""
import base64
import json
import os
import socket
import struct
import threading
import time
import urllib.parse


class WebSocket:
    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("the browser closed the DevTools connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"no WebSocket upgrade: {head[:80]!r}")
        self.sock.settimeout(None)
        self.lock = threading.Lock()

    def send(self, text, opcode=0x1):
        payload = text.encode() if isinstance(text, str) else text
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with self.lock:
            self.sock.sendall(header + mask + masked)

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the DevTools connection closed")
            data += chunk
        return data

    def recv(self):
        """The next text message (None once the peer closed)."""
        message = b""
        while True:
            b0, b1 = self._exactly(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._exactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._exactly(8))[0]
            mask = self._exactly(4) if b1 & 0x80 else None
            data = self._exactly(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if opcode == 0x8:
                return None
            if opcode == 0x9:
                self.send(data, opcode=0xA)
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += data
                if b0 & 0x80:
                    return message.decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class CDPError(Exception):
    pass


class Browser:
    """One browser-level DevTools connection; commands for a page pass its session id."""

    def __init__(self, url):
        self.ws = WebSocket(url)
        self.next_id = 0
        self.answers = {}
        self.events = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            while True:
                text = self.ws.recv()
                if text is None:
                    break
                message = json.loads(text)
                with self.cond:
                    if "id" in message:
                        self.answers[message["id"]] = message
                    else:
                        self.events.append(message)
                    self.cond.notify_all()
        except (ConnectionError, OSError):
            pass
        with self.cond:
            self.answers[-1] = None
            self.cond.notify_all()

    def send(self, method, params=None, session=None, timeout=30):
        with self.cond:
            self.next_id += 1
            ident = self.next_id
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        deadline = time.time() + timeout
        with self.cond:
            while ident not in self.answers:
                if -1 in self.answers or not self.cond.wait(max(0.0, deadline - time.time())):
                    raise CDPError(f"{method}: no answer")
            answer = self.answers.pop(ident)
        if "error" in answer:
            raise CDPError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result", {})

    def wait_event(self, method, predicate=lambda params: True, timeout=15):
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for event in self.events:
                    if event["method"] == method and predicate(event.get("params", {})):
                        self.events.remove(event)
                        return event["params"]
                if not self.cond.wait(max(0.0, deadline - time.time())) and time.time() >= deadline:
                    raise CDPError(f"no {method} event")

    def close(self):
        self.ws.close()
