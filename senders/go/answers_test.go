package sender

import (
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"
)

type answerRow struct {
	Status      int
	ContentType *string `json:"content_type"`
	Body        string
	RetryAfter  string `json:"retry_after"`
	Outcome     string
}

type scriptedRequest struct {
	at   time.Time
	auth string
	ids  []string
}

// TestTheReporterFollowsEachAnswer runs each row of upload-answers.json against a scripted stand-in: the
// row's answer first, then PushLedger's 200 for whatever comes next.
func TestTheReporterFollowsEachAnswer(t *testing.T) {
	var answers struct{ Rows []answerRow }
	loadFixture(t, "upload-answers.json", &answers)
	var mu sync.Mutex
	var script []answerRow
	var requests []scriptedRequest
	standIn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zr, _ := gzip.NewReader(r.Body)
		var body struct{ Sends []map[string]any }
		_ = json.NewDecoder(zr).Decode(&body)
		mu.Lock()
		req := scriptedRequest{at: time.Now(), auth: r.Header.Get("Authorization")}
		for _, s := range body.Sends {
			req.ids = append(req.ids, s["event_id"].(string))
		}
		requests = append(requests, req)
		ok := "application/json"
		answer := answerRow{Status: 200, ContentType: &ok, Body: `{"accepted":2,"duplicates":0,"rejected":[]}`}
		if len(script) > 0 {
			answer, script = script[0], script[1:]
		}
		mu.Unlock()
		if answer.ContentType != nil {
			w.Header().Set("Content-Type", *answer.ContentType)
		}
		if answer.RetryAfter != "" {
			w.Header().Set("Retry-After", answer.RetryAfter)
		}
		w.WriteHeader(answer.Status)
		_, _ = w.Write([]byte(answer.Body))
	}))
	defer standIn.Close()
	for _, row := range answers.Rows {
		row := row
		t.Run(strconv.Itoa(row.Status)+" "+str(row.ContentType)+" "+row.Outcome, func(t *testing.T) {
			mu.Lock()
			script, requests = []answerRow{row}, nil
			mu.Unlock()
			r := newReporter(t, standIn.URL, "pl_key", "com.example.shop", Options{BatchSize: 2,
				FlushInterval: 10 * time.Millisecond})
			for i := 0; i < 2; i++ {
				_ = r.FCM(map[string]any{"token": "t", "data": map[string]any{"k": "v"}}, 200, nil,
					Report{NotificationID: "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77"})
			}
			wait := 8 * time.Second
			if row.Outcome == Unauthorized {
				wait = time.Second
			}
			drained := r.Flush(within(wait)) == nil
			stats := r.Stats()
			_ = r.Close(within(100 * time.Millisecond))
			mu.Lock()
			first, later := requests[0], requests[1:]
			mu.Unlock()
			if first.auth != "Bearer pl_key" || len(first.ids) != 2 {
				t.Fatalf("first request %+v", first)
			}
			switch row.Outcome {
			case Stored, Refused:
				dropped := 0
				if row.Outcome == Refused {
					dropped = 2
				}
				if !drained || len(later) != 0 || stats.Dropped != dropped {
					t.Fatalf("drained %v, later %d, %+v", drained, len(later), stats)
				}
			case Split:
				if !drained || len(later) != 2 || !reflect.DeepEqual(append(later[0].ids, later[1].ids...), first.ids) {
					t.Fatalf("drained %v, later %+v", drained, later)
				}
			case Unauthorized:
				if drained || len(later) != 0 || stats.Queued != 2 || stats.Unauthorized != 1 {
					t.Fatalf("drained %v, later %d, %+v", drained, len(later), stats)
				}
			default:
				if !drained || stats.Retries != 1 || stats.Dropped != 0 || !reflect.DeepEqual(later[0].ids, first.ids) {
					t.Fatalf("drained %v, %+v", drained, stats)
				}
				waited := later[0].at.Sub(first.at).Seconds()
				if after, _ := strconv.ParseFloat(row.RetryAfter, 64); row.RetryAfter != "" && waited < after-0.05 ||
					row.RetryAfter == "" && (waited < 0.2 || waited >= 2) {
					t.Fatalf("waited %v s", waited)
				}
			}
		})
	}
}
