package sender

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// Every row of the shared rule table (Tests/Fixtures/sender-fields.json) through the functions APNs, FCM and
// WebPush call.
func TestRuleTable(t *testing.T) {
	var tab table
	loadFixture(t, "sender-fields.json", &tab)
	for _, w := range append(tab.Rows, tab.WebPushRows...) {
		w := w
		t.Run(w.Name, func(t *testing.T) {
			var send object
			var err error
			if w.Provider == "webpush" {
				send, err = webPushSend(tab.AppID, "default", w.endpoint(), w.Request.Headers, w.Answer.Status, w.body(),
					w.report(t))
			} else if w.Provider == "apns" {
				send, err = apnsSend(tab.AppID, "default", w.Request.Token, w.Request.Payload, w.Request.Headers,
					w.Answer.Status, w.body(), w.report(t))
			} else {
				send, err = fcmSend(tab.AppID, "default", w.Request.Message, w.Answer.Status, w.body(), w.report(t))
			}
			if w.Error != nil {
				var re *ReportError
				if !errors.As(err, &re) || re.Code != w.Error.Code || re.Field != w.Error.Field {
					t.Fatalf("want %s %s, got %v", w.Error.Code, w.Error.Field, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !uuidV4.MatchString(send["event_id"].(string)) {
				t.Fatalf("event_id %v", send["event_id"])
			}
			delete(send, "event_id")
			var got map[string]any
			text, _ := json.Marshal(send)
			_ = json.Unmarshal(text, &got)
			if !reflect.DeepEqual(got, w.Send) {
				t.Fatalf("\n got %v\nwant %v", got, w.Send)
			}
		})
	}
}

func TestRefusedReportIsAValueAndQueuesNothing(t *testing.T) {
	r, err := New("http://127.0.0.1:9", "key", "com.example.shop", Options{Logf: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(within(0))
	err = r.FCM(map[string]any{"topic": "news"}, 200, nil, Report{NotificationID: "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77"})
	var re *ReportError
	if !errors.As(err, &re) || re.Field != "token" {
		t.Fatalf("got %v", err)
	}
	if s := r.Stats(); s.Invalid != 1 || s.Queued != 0 {
		t.Fatalf("%+v", s)
	}
}

func TestUploadAnswers(t *testing.T) {
	var answers struct {
		RefusalCodes []string `json:"refusal_codes"`
		Rows         []struct {
			Status      int
			ContentType *string `json:"content_type"`
			Body        string
			Outcome     string
		}
	}
	loadFixture(t, "upload-answers.json", &answers)
	if len(answers.RefusalCodes) != len(RefusalCodes) {
		t.Fatalf("refusal codes %v", answers.RefusalCodes)
	}
	for _, code := range answers.RefusalCodes {
		if !RefusalCodes[code] {
			t.Fatalf("missing refusal code %s", code)
		}
	}
	for _, w := range answers.Rows {
		if got := Classify(w.Status, str(w.ContentType), []byte(w.Body)); got != w.Outcome {
			t.Errorf("%d %v %q: got %s, want %s", w.Status, str(w.ContentType), w.Body, got, w.Outcome)
		}
	}
	if Classify(0, "", nil) != Retry {
		t.Error("no answer must be retried")
	}
}

func TestRetryDelays(t *testing.T) {
	var delays struct {
		Policy struct {
			Base          float64 `json:"base_delay_s"`
			Max           float64 `json:"max_delay_s"`
			MaxRetryAfter float64 `json:"max_retry_after_s"`
		}
		Rows []struct {
			Attempt    int
			RetryAfter *string `json:"retry_after"`
			Random     float64
			Delay      float64 `json:"delay_s"`
		}
	}
	loadFixture(t, "retry-delays.json", &delays)
	if delays.Policy.Base != BaseDelay || delays.Policy.Max != MaxDelay || delays.Policy.MaxRetryAfter != MaxRetryAfter {
		t.Fatalf("policy %+v", delays.Policy)
	}
	for _, w := range delays.Rows {
		if got := RetryDelay(w.Attempt, str(w.RetryAfter), w.Random); math.Abs(got-w.Delay) > 1e-9 {
			t.Errorf("attempt %d Retry-After %v random %v: got %v, want %v", w.Attempt, str(w.RetryAfter), w.Random,
				got, w.Delay)
		}
	}
}

func TestRefusedWebPushEndpointIsAValueWithoutTheEndpoint(t *testing.T) {
	r, err := New("http://127.0.0.1:9", "key", "com.example.shop", Options{Logf: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(within(0))
	endpoint := "http://push.example.net/push/v1/secret-subscription-id"
	err = r.WebPush(endpoint, map[string]string{"TTL": "60"}, 201, nil,
		Report{NotificationID: "5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77"})
	var re *ReportError
	if !errors.As(err, &re) || re.Code != "invalid_field" || re.Field != "token" {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(re.Error(), "secret-subscription-id") || strings.Contains(re.Error(), "push.example.net") {
		t.Fatalf("the message holds the endpoint: %v", re)
	}
	if s := r.Stats(); s.Invalid != 1 || s.Queued != 0 {
		t.Fatalf("%+v", s)
	}
}
