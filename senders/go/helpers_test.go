package sender

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The rule table's clock: 2026-11-30T10:00:00Z.
const baseSentS = 1796032800

var root, _ = filepath.Abs(filepath.Join("..", ".."))

// run keeps this run's app ids apart from those of earlier runs on a database kept between runs.
var runID = newUUID()[:8]

func uniqueApp(app string) string { return app + ".r" + runID }

func loadFixture(t *testing.T, name string, into any) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, "Tests", "Fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(text, into); err != nil {
		t.Fatal(err)
	}
}

type repeatSpec struct {
	Prefix, Repeat, Suffix string
	Times                  int
}

func (s *repeatSpec) text() string { return s.Prefix + strings.Repeat(s.Repeat, s.Times) + s.Suffix }

type row struct {
	Name     string
	Provider string
	Request  struct {
		Token          string
		Payload        any
		Headers        headerMap
		Message        map[string]any
		Endpoint       string
		EndpointRepeat *repeatSpec `json:"endpoint_repeat"`
	}
	Answer struct {
		Status     int
		Body       *string
		BodyRepeat *repeatSpec `json:"body_repeat"`
		Headers    map[string]string
	}
	Report struct {
		NotificationID *string     `json:"notification_id"`
		Channel        *string     `json:"channel"`
		ChannelRepeat  *repeatSpec `json:"channel_repeat"`
		Campaign       *string     `json:"campaign"`
		SentAt         string      `json:"sent_at"`
	}
	Send map[string]any
	// Stored is what the server adds to a Web Push send (the push service it derives from the endpoint).
	Stored map[string]any
	Error  *struct{ Code, Field string }
}

type table struct {
	AppID       string `json:"app_id"`
	Rows        []row
	WebPushRows []row `json:"webpush_rows"`
}

// headerMap reads a row's request headers; a number (a TTL given as one in Python or Node) becomes its
// decimal text, as a Go sender writes it into the header.
type headerMap map[string]string

func (h *headerMap) UnmarshalJSON(text []byte) error {
	var raw map[string]any
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil || raw == nil {
		*h = nil
		return err
	}
	*h = map[string]string{}
	for k, v := range raw {
		(*h)[k] = fmt.Sprint(v) // a string as it is, a json.Number as written
	}
	return nil
}

func (r row) endpoint() string {
	if r.Request.EndpointRepeat != nil {
		return r.Request.EndpointRepeat.text()
	}
	return r.Request.Endpoint
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (r row) body() []byte {
	switch {
	case r.Answer.Body != nil:
		return []byte(*r.Answer.Body)
	case r.Answer.BodyRepeat != nil:
		return []byte(r.Answer.BodyRepeat.text())
	}
	return nil
}

func (r row) report(t *testing.T) Report {
	sentAt, err := time.Parse(time.RFC3339, r.Report.SentAt)
	if err != nil {
		t.Fatal(err)
	}
	channel := str(r.Report.Channel)
	if r.Report.ChannelRepeat != nil {
		channel = r.Report.ChannelRepeat.text()
	}
	return Report{NotificationID: str(r.Report.NotificationID), Channel: channel, Campaign: str(r.Report.Campaign),
		SentAt: sentAt, APNsID: r.Answer.Headers["apns-id"]}
}

// shifted moves the row seconds later: sent_at, apns-expiration headers, the expected sent_at/expires_at.
func (r row) shifted(t *testing.T, seconds int64) row {
	var c row
	text, _ := json.Marshal(r)
	_ = json.Unmarshal(text, &c)
	moveHeader := func(h map[string]any) {
		if v, ok := h["apns-expiration"].(string); ok && v != "0" {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				h["apns-expiration"] = strconv.FormatInt(n+seconds, 10)
			}
		}
	}
	moveTime := func(s string) string {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Add(time.Duration(seconds) * time.Second).UTC().Format(timeLayout)
	}
	if v, ok := c.Request.Headers["apns-expiration"]; ok && v != "0" {
		n, _ := strconv.ParseInt(v, 10, 64)
		c.Request.Headers["apns-expiration"] = strconv.FormatInt(n+seconds, 10)
	}
	m := c.Request.Message
	if inner, ok := m["message"].(map[string]any); ok {
		m = inner
	}
	if apns, ok := m["apns"].(map[string]any); ok {
		if h, ok := apns["headers"].(map[string]any); ok {
			moveHeader(h)
		}
	}
	c.Report.SentAt = moveTime(c.Report.SentAt)
	if c.Send != nil {
		c.Send["sent_at"] = moveTime(c.Send["sent_at"].(string))
		if e, ok := c.Send["expires_at"].(string); ok {
			c.Send["expires_at"] = moveTime(e)
		}
	}
	return c
}

// reportRow reports one rule-table row through the public API.
func reportRow(t *testing.T, r *Reporter, w row) error {
	if w.Provider == "webpush" {
		return r.WebPush(w.endpoint(), w.Request.Headers, w.Answer.Status, w.body(), w.report(t))
	}
	if w.Provider == "apns" {
		return r.APNs(w.Request.Token, w.Request.Payload, w.Request.Headers, w.Answer.Status, w.body(), w.report(t))
	}
	return r.FCM(w.Request.Message, w.Answer.Status, w.body(), w.report(t))
}

func env(t *testing.T, name string) string {
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run the suite with scripts/senders.sh test", name)
	}
	return v
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", filepath.Base(name), args[0], err)
	}
	return strings.TrimSpace(string(out))
}

func createKey(t *testing.T, app string, extra ...string) string {
	return run(t, env(t, "PUSHLEDGER_BIN"), append([]string{"keys", "create", "--app", app, "--scope", "sends"},
		extra...)...)
}

func query(t *testing.T, sql string, into any) {
	t.Helper()
	out := run(t, "psql", env(t, "DATABASE_URL"), "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql)
	if err := json.Unmarshal([]byte(out), into); err != nil {
		t.Fatal(err)
	}
}

func storedSends(t *testing.T, app string) []map[string]any {
	var sends []map[string]any
	query(t, fmt.Sprintf("select coalesce(json_agg(s), '[]') from sends s where app_id = '%s'", app), &sends)
	return sends
}

func storedIDs(t *testing.T, app string) map[string]int {
	counts := map[string]int{}
	for _, s := range storedSends(t, app) {
		counts[s["notification_id"].(string)]++
	}
	return counts
}

// server is `pushledger serve` on a loopback port of its own, restartable on the same port.
type server struct {
	t    *testing.T
	port string
	args []string
	cmd  *exec.Cmd
}

func newServer(t *testing.T, args ...string) *server {
	s := &server{t: t, port: run(t, filepath.Join(root, "scripts", "free-port.sh")), args: args}
	t.Cleanup(func() { s.stop(syscall.SIGKILL) })
	return s
}

func (s *server) url() string { return "http://127.0.0.1:" + s.port }

func (s *server) start() *server {
	s.cmd = exec.Command(env(s.t, "PUSHLEDGER_BIN"), append([]string{"serve", "--listen", "127.0.0.1:" + s.port},
		s.args...)...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(s.url() + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
	}
	s.stop(syscall.SIGKILL)
	s.t.Fatal("pushledger serve did not become ready")
	return nil
}

func (s *server) stop(sig syscall.Signal) {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(sig)
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

func within(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	_ = cancel // released when it expires; tests are short
	return ctx
}

func quiet(string, ...any) {}
