package sender_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sender "pushledger.dev/sender"
)

// standIn is a PushLedger stand-in that keeps what it is sent (the real server's suite is
// server_test.go; here the examples' own behaviour is under test).
type standIn struct {
	mu    sync.Mutex
	sends map[string]map[string]any
}

func newStandIn(t *testing.T) (*standIn, *httptest.Server) {
	s := &standIn{sends: map[string]map[string]any{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zr, err := gzip.NewReader(r.Body)
		if err != nil || r.Header.Get("Authorization") != "Bearer key" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var body struct{ Sends []map[string]any }
		_ = json.NewDecoder(zr).Decode(&body)
		s.mu.Lock()
		for _, send := range body.Sends {
			s.sends[send["notification_id"].(string)] = send
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"accepted": len(body.Sends), "duplicates": 0, "rejected": []any{}})
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *standIn) get(nid string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sends[nid]
}

const (
	nid1 = "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77"
	nid2 = "6b1e4f5a-1d63-4a1b-9d8f-3e6a4d0c2b88"
	nid3 = "7c2f5a6b-2e74-4b2c-8e9a-4f7b5e1d3c99"
)

func TestGuideBlocksAreTheExamples(t *testing.T) {
	source, _ := os.ReadFile("example_test.go")
	guide, err := os.ReadFile("../../docs/integrations/senders.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go", "go-http2", "go-fcm"} {
		_, region, _ := strings.Cut(string(source), "// guide:begin "+name+"\n")
		region, _, _ = strings.Cut(region, "\n// guide:end")
		_, block, _ := strings.Cut(string(guide), "```go tested="+name+"\n")
		block, _, _ = strings.Cut(block, "```")
		if region == "" || strings.TrimSpace(block) != strings.TrimSpace(region) {
			t.Errorf("the guide's %s block differs from example_test.go's region", name)
		}
	}
}

func TestGuideExamples(t *testing.T) {
	pl, srv := newStandIn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	token := strings.Repeat("ab", 32)
	err := reportAttempts(ctx, srv.URL, "key", token, map[string]any{"aps": map[string]any{"alert": "Hi",
		"mutable-content": 1}}, map[string]string{"apns-push-type": "alert"}, 200, []byte{},
		map[string]any{"token": "fcm-token", "notification": map[string]any{"title": "Hi"}}, nid1, nid2)
	if err != nil {
		t.Fatal(err)
	}
	if s := pl.get(nid1); s == nil || s["mutable_content"] != true || s["push_type"] != "alert" {
		t.Fatalf("apns send %v", s)
	}
	if s := pl.get(nid2); s == nil || s["message_kind"] != "notification" || s["token"] != "fcm-token" {
		t.Fatalf("fcm send %v", s)
	}
}

// http2StandIn starts a provider's stand-in on HTTP/2 over TLS (closed when the test ends) and a reporter
// posting to the PushLedger stand-in srv.
func http2StandIn(t *testing.T, provider, srv *httptest.Server) *sender.Reporter {
	provider.EnableHTTP2 = true
	provider.StartTLS()
	t.Cleanup(provider.Close)
	reporter, err := sender.New(srv.URL, "key", "com.example.shop", sender.Options{Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	return reporter
}

func TestAPNsOverHTTP2(t *testing.T) {
	pl, srv := newStandIn(t)
	var protos []int
	var mu sync.Mutex
	apns := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protos = append(protos, r.ProtoMajor)
		mu.Unlock()
		w.Header().Set("apns-id", r.Header.Get("apns-id"))
		if strings.HasSuffix(r.URL.Path, strings.Repeat("bb", 32)) {
			w.WriteHeader(http.StatusGone)
			_, _ = w.Write([]byte(`{"reason":"Unregistered","timestamp":1796000000000}`))
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	reporter := http2StandIn(t, apns, srv)
	ctx := context.Background()
	headers := map[string]string{"apns-push-type": "background", "apns-priority": "5", "apns-id": nid3}
	payload := []byte(`{"aps":{"content-available":1}}`)
	for token, nid := range map[string]string{strings.Repeat("aa", 32): nid1, strings.Repeat("bb", 32): nid2} {
		if _, err := pushAPNs(ctx, apns.Client(), reporter, apns.URL, token, payload, headers, "bearer x",
			sender.Report{NotificationID: nid, Channel: "sync"}); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing listens on a closed server: no answer is reported as status 0.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if _, err := pushAPNs(ctx, apns.Client(), reporter, closed.URL, strings.Repeat("cc", 32), payload, headers,
		"bearer x", sender.Report{NotificationID: nid3, Channel: "sync"}); err == nil {
		t.Fatal("a closed server answered")
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := reporter.Close(cctx); err != nil {
		t.Fatal(err)
	}
	if protos[0] != 2 || protos[1] != 2 {
		t.Fatalf("APNs saw HTTP/%v, want HTTP/2", protos)
	}
	ok, gone, none := pl.get(nid1), pl.get(nid2), pl.get(nid3)
	if ok["status"] != 200.0 || ok["apns_id"] != nid3 || ok["push_type"] != "background" || ok["latency_ms"] == nil {
		t.Fatalf("ok %v", ok)
	}
	if gone["status"] != 410.0 || gone["reason"] != "Unregistered" ||
		gone["unregistered_at"] != "2026-11-30T00:53:20.000Z" {
		t.Fatalf("gone %v", gone)
	}
	if none["status"] != 0.0 || none["response_body"] != nil {
		t.Fatalf("no answer %v", none)
	}
}

func TestFCMOverHTTP2(t *testing.T) {
	pl, srv := newStandIn(t)
	fcm := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Message map[string]any }
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		if r.ProtoMajor != 2 || r.Header.Get("authorization") != "Bearer ya29.x" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if body.Message["token"] == "gone-1" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":404,"status":"NOT_FOUND","details":[` +
				`{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`))
			return
		}
		_, _ = w.Write([]byte(`{"name":"projects/shop/messages/0:1"}`))
	}))
	reporter := http2StandIn(t, fcm, srv)
	ctx := context.Background()
	messages := map[string]map[string]any{
		nid1: {"token": "ok-1", "data": map[string]any{"order": "42"}, "android": map[string]any{"ttl": "60s"}},
		nid2: {"token": "gone-1", "notification": map[string]any{"title": "Hi"}},
	}
	for nid, message := range messages {
		if _, err := pushFCM(ctx, fcm.Client(), reporter, fcm.URL, "shop", message, "Bearer ya29.x",
			sender.Report{NotificationID: nid, Channel: "orders"}); err != nil {
			t.Fatal(err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := reporter.Close(cctx); err != nil {
		t.Fatal(err)
	}
	ok, gone := pl.get(nid1), pl.get(nid2)
	if ok["status"] != 200.0 || ok["message_kind"] != "data" || ok["expires_at"] == nil {
		t.Fatalf("ok %v", ok)
	}
	if gone["status"] != 404.0 || gone["reason"] != "UNREGISTERED" || gone["message_kind"] != "notification" {
		t.Fatalf("gone %v", gone)
	}
}
