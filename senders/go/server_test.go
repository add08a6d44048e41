package sender

import (
	"fmt"
	"reflect"
	"syscall"
	"testing"
	"time"
)

func sendColumns(t *testing.T) map[string]bool {
	var names []string
	query(t, "select json_agg(column_name) from information_schema.columns where table_name = 'sends'", &names)
	columns := map[string]bool{}
	for _, n := range names {
		columns[n] = true
	}
	return columns
}

func sameValue(t *testing.T, field string, got, want any) bool {
	switch field {
	case "sent_at", "expires_at", "unregistered_at":
		g, err1 := time.Parse(time.RFC3339Nano, fmt.Sprint(got))
		w, err2 := time.Parse(time.RFC3339Nano, fmt.Sprint(want))
		return err1 == nil && err2 == nil && g.Equal(w)
	}
	return reflect.DeepEqual(got, want)
}

func newReporter(t *testing.T, url, key, app string, opts Options) *Reporter {
	opts.Logf = quiet
	r, err := New(url, key, app, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func alert(r *Reporter, nid string) error {
	return r.APNs("abababababababababababababababababababababababababababababababab",
		map[string]any{"aps": map[string]any{"alert": "Hi", "mutable-content": 1}},
		map[string]string{"apns-push-type": "alert"}, 200, []byte{}, Report{NotificationID: nid, Channel: "orders"})
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = newUUID()
	}
	return out
}

func expectOnce(t *testing.T, app string, nids []string) {
	t.Helper()
	want := map[string]int{}
	for _, n := range nids {
		want[n] = 1
	}
	if got := storedIDs(t, app); !reflect.DeepEqual(got, want) {
		t.Fatalf("stored %d distinct, want %d each once", len(got), len(want))
	}
}

// reportAndStore reports the rows that have a send, moved to now, for a new app of its own through a
// real server, and returns them with the stored sends by notification id.
func reportAndStore(t *testing.T, appPrefix string, rows []row) ([]row, map[string]map[string]any) {
	t.Helper()
	app := uniqueApp(appPrefix)
	key := createKey(t, app)
	srv := newServer(t).start()
	r := newReporter(t, srv.url(), key, app, Options{})
	var moved []row
	for _, w := range rows {
		if w.Send != nil {
			w = w.shifted(t, time.Now().Unix()-baseSentS)
			moved = append(moved, w)
			if err := reportRow(t, r, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.Close(within(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Accepted != len(moved) {
		t.Fatalf("%+v", s)
	}
	stored := map[string]map[string]any{}
	for _, s := range storedSends(t, app) {
		stored[s["notification_id"].(string)] = s
	}
	return moved, stored
}

func TestEveryRuleTableRowIsStoredOnceWithEveryField(t *testing.T) {
	var tab table
	loadFixture(t, "sender-fields.json", &tab)
	moved, stored := reportAndStore(t, "com.example.go.fields", tab.Rows)
	columns := sendColumns(t)
	skip := map[string]bool{"event_id": true, "app_id": true, "token_key": true, "installation_id": true,
		"resolved_by": true, "received_at": true}
	for _, w := range moved {
		send := stored[w.Send["notification_id"].(string)]
		for field, want := range w.Send {
			if field == "app_id" {
				continue
			}
			if !sameValue(t, field, send[field], want) {
				t.Errorf("%s: %s stored %v, want %v", w.Name, field, send[field], want)
			}
		}
		for column := range columns {
			if _, expected := w.Send[column]; !expected && !skip[column] && send[column] != nil {
				t.Errorf("%s: %s stored %v, want none", w.Name, column, send[column])
			}
		}
	}
}

// Web Push rows: each send's fields stored as posted; ttl_seconds as expires_at = sent_at + TTL, topic as
// collapse_id, and the push service the row says the server derives.
func TestEveryWebPushRowIsStoredAsTheContractSays(t *testing.T) {
	var tab table
	loadFixture(t, "sender-fields.json", &tab)
	moved, stored := reportAndStore(t, "com.example.go.webpush", tab.WebPushRows)
	for _, w := range moved {
		send := stored[w.Send["notification_id"].(string)]
		for field, want := range w.Stored {
			w.Send[field] = want
		}
		for field, want := range w.Send {
			switch field {
			case "app_id":
			case "ttl_seconds":
				sentAt, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(send["sent_at"]))
				expires := sentAt.Add(time.Duration(want.(float64)) * time.Second).Format(time.RFC3339Nano)
				if !sameValue(t, "expires_at", send["expires_at"], expires) {
					t.Errorf("%s: expires_at %v, want sent_at + %v s", w.Name, send["expires_at"], want)
				}
			case "topic":
				if send["collapse_id"] != want {
					t.Errorf("%s: collapse_id %v, want the topic %v", w.Name, send["collapse_id"], want)
				}
			default:
				if !sameValue(t, field, send[field], want) {
					t.Errorf("%s: %s stored %v, want %v", w.Name, field, send[field], want)
				}
			}
		}
	}
}

func TestExactlyOnceAcrossAKilledServer(t *testing.T) {
	app := uniqueApp("com.example.go.restart")
	key := createKey(t, app)
	srv := newServer(t).start()
	r := newReporter(t, srv.url(), key, app, Options{BatchSize: 25, FlushInterval: 10 * time.Millisecond})
	nids := ids(400)
	for i, nid := range nids {
		if err := alert(r, nid); err != nil {
			t.Fatal(err)
		}
		if i%25 == 0 {
			time.Sleep(2 * time.Millisecond) // let batches go out
		}
		if i == 150 {
			srv.stop(syscall.SIGKILL)
		}
		if i == 250 {
			srv.start()
		}
	}
	if err := r.Close(within(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Retries < 1 {
		t.Fatalf("no retry: %+v", s)
	}
	expectOnce(t, app, nids)
}

func TestAWrongKeyHoldsTheSendsUntilTheKeyChanges(t *testing.T) {
	app := uniqueApp("com.example.go.wrongkey")
	key := createKey(t, app)
	srv := newServer(t).start()
	r := newReporter(t, srv.url(), "pl_wrong_"+key[len(key)-6:], app, Options{FlushInterval: 10 * time.Millisecond})
	nids := ids(5)
	for _, nid := range nids {
		_ = alert(r, nid)
	}
	if err := r.Flush(within(1500 * time.Millisecond)); err == nil {
		t.Fatal("flushed with a wrong key")
	}
	if s := r.Stats(); s.Unauthorized < 1 || s.Queued != 5 || s.Dropped != 0 {
		t.Fatalf("%+v", s)
	}
	if n := len(storedSends(t, app)); n != 0 {
		t.Fatalf("%d stored with a wrong key", n)
	}
	r.SetKey(key)
	if err := r.Close(within(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	expectOnce(t, app, nids)
}

func Test429WaitsForRetryAfterAndLosesNothing(t *testing.T) {
	app := uniqueApp("com.example.go.rate")
	key := createKey(t, app, "--rate", "40", "--burst", "20")
	srv := newServer(t).start()
	r := newReporter(t, srv.url(), key, app, Options{BatchSize: 20, FlushInterval: 10 * time.Millisecond})
	nids := ids(80)
	for _, nid := range nids {
		_ = alert(r, nid)
	}
	if err := r.Close(within(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Retries < 1 || s.Accepted != 80 {
		t.Fatalf("%+v", s)
	}
	expectOnce(t, app, nids)
}

func Test413SplitsTheBatch(t *testing.T) {
	app := uniqueApp("com.example.go.split")
	key := createKey(t, app)
	srv := newServer(t, "--max-events", "7").start()
	r := newReporter(t, srv.url(), key, app, Options{BatchSize: 50})
	nids := ids(40)
	for _, nid := range nids {
		_ = alert(r, nid)
	}
	if err := r.Close(within(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Accepted != 40 || s.Dropped != 0 {
		t.Fatalf("%+v", s)
	}
	expectOnce(t, app, nids)
}

func TestUnreachableServerDropsTheOldestCountedAndNeverBlocks(t *testing.T) {
	app := uniqueApp("com.example.go.outage")
	key := createKey(t, app)
	srv := newServer(t) // not started: nothing listens on its port yet
	r := newReporter(t, srv.url(), key, app, Options{BatchSize: 10, MaxQueue: 100, FlushInterval: 10 * time.Millisecond})
	nids := ids(250)
	started := time.Now()
	for _, nid := range nids {
		if err := alert(r, nid); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(started); took > time.Second {
		t.Fatalf("reports took %v", took)
	}
	if s := r.Stats(); s.Dropped != 150 || s.Queued != 100 {
		t.Fatalf("%+v", s)
	}
	srv.start()
	if err := r.Close(within(40 * time.Second)); err != nil {
		t.Fatal(err)
	}
	expectOnce(t, app, nids[150:])
}
