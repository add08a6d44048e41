// What the reporter does with each answer to an upload, and how long it waits before the next try:
// the clients' shared rules (Tests/Fixtures/upload-answers.json, retry-delays.json).

package sender

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The outcomes of one upload.
const (
	Stored       = "stored"
	Refused      = "refused"
	Split        = "split"
	Retry        = "retry"
	Unauthorized = "unauthorized"
	Unexpected   = "unexpected"
)

// The shared retry policy, in seconds.
const (
	BaseDelay     = 0.5
	MaxDelay      = 30.0
	MaxRetryAfter = 60.0
)

// RefusalCodes are PushLedger's own 400 codes: only these refuse a request for good (its sends are dropped).
var RefusalCodes = map[string]bool{"invalid_json": true, "invalid_gzip": true, "missing_field": true,
	"invalid_field": true, "unstorable": true}

var secondsPattern = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)?$`)

// parseAnswer is the answer's JSON object when it is one, sent as JSON; else nil.
func parseAnswer(contentType string, body []byte) map[string]any {
	mediaType, _, _ := strings.Cut(contentType, ";")
	if !strings.EqualFold(strings.TrimSpace(mediaType), "application/json") {
		return nil
	}
	var answer map[string]any
	if json.Unmarshal(body, &answer) != nil {
		return nil
	}
	return answer
}

// Classify is the outcome of one upload; status 0 is a network error (no answer), and contentType ""
// an answer without one.
func Classify(status int, contentType string, body []byte) string {
	switch {
	case status == 0 || status == 429 || (status >= 500 && status <= 599):
		return Retry
	case status == 413:
		return Split
	case status == 401 || status == 403:
		return Unauthorized
	}
	answer := parseAnswer(contentType, body)
	switch status {
	case 200:
		if accepted, ok := answer["accepted"].(float64); ok && accepted == math.Trunc(accepted) {
			return Stored
		}
		return Unexpected
	case 400:
		code, _ := answer["error"].(string)
		if _, ok := answer["message"].(string); ok && RefusalCodes[code] {
			return Refused
		}
		return Retry
	}
	return Unexpected
}

// RetryDelay is the seconds to wait after failed attempt (1-based): a usable Retry-After (non-negative
// decimal seconds, at most 60; "" for none), else exponential backoff with equal jitter.
func RetryDelay(attempt int, retryAfter string, random float64) float64 {
	if trimmed := strings.TrimSpace(retryAfter); secondsPattern.MatchString(trimmed) {
		seconds, _ := strconv.ParseFloat(trimmed, 64)
		return math.Min(seconds, MaxRetryAfter)
	}
	exponential := math.Min(MaxDelay, BaseDelay*math.Pow(2, float64(clamp(attempt-1, 0, 20))))
	return exponential/2 + exponential/2*math.Min(math.Max(random, 0), 1)
}

func clamp(v, low, high int) int {
	if v < low {
		return low
	}
	if v > high {
		return high
	}
	return v
}
