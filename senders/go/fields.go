// The rule table: what one reported attempt becomes on POST /v1/sends.
// Tests/Fixtures/sender-fields.json holds the rows the Python, Node and Go libraries all run, and the
// server's own validator runs every expected send of it.

package sender

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// The contract's time range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, in ms since 1970.
	minMs = -62135596800000
	maxMs = 253402300799999
	// MaxResponseBodyBytes is the largest response_body the contract stores; a longer body is left out.
	MaxResponseBodyBytes = 4096
	labelBytes           = 255
	identifierBytes      = 255
	shortWordBytes       = 64
	fcmErrorType         = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
	timeLayout           = "2006-01-02T15:04:05.000Z"
)

var (
	uuidPattern   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	digitsPattern = regexp.MustCompile(`^[0-9]+$`)
	// A google.protobuf.Duration in JSON: seconds with up to nine fraction digits and an "s".
	durationPattern = regexp.MustCompile(`^([0-9]+)(?:\.([0-9]{1,9}))?s$`)
)

// ReportError is a report that cannot become a send. Code is missing_field, invalid_field or closed;
// Field names the argument by its contract name; the message never holds a token or a key.
type ReportError struct {
	Code    string
	Field   string
	Message string
}

func (e *ReportError) Error() string { return "pushledger: " + e.Message }

func invalid(field, format string, args ...any) *ReportError {
	return &ReportError{Code: "invalid_field", Field: field, Message: fmt.Sprintf(format, args...)}
}

// Report holds the caller's own fields of one attempt; empty means not given.
type Report struct {
	// NotificationID is the UUID the app reports receipts with; empty takes the payload's notification_id.
	NotificationID string
	// Channel is the notification's channel; empty takes the payload's, else the reporter's default.
	Channel  string
	Campaign string
	// SentAt is when the request was made; zero means now.
	SentAt         time.Time
	InstallationID string
	// LatencyMs is the provider's answer time, when measured.
	LatencyMs *int
	// APNsID is the APNs answer's apns-id header (default: the request's).
	APNsID string
	// Environment is production or development, when the sender knows which APNs it used.
	Environment string
}

type object = map[string]any

// parseJSON reads one JSON value with numbers kept as written; false when b is not exactly one.
func parseJSON(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// jsonObject takes a payload or message as the JSON text sent, or as any value that marshals to an
// object (a map, a struct with JSON tags); numbers come back as json.Number either way.
func jsonObject(v any, field string) (object, error) {
	var text []byte
	switch t := v.(type) {
	case []byte:
		text = t
	case json.RawMessage:
		text = t
	case string:
		text = []byte(t)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, invalid(field, "%s cannot be written as JSON", field)
		}
		text = b
	}
	parsed, ok := parseJSON(text)
	if !ok {
		return nil, invalid(field, "%s is not JSON", field)
	}
	o, ok := parsed.(object)
	if !ok {
		return nil, invalid(field, "%s must be a JSON object", field)
	}
	return o, nil
}

func obj(v any) object {
	if o, ok := v.(object); ok {
		return o
	}
	return object{}
}

// storable is the value when the contract can store it as a string of at most max bytes.
func storable(v any, max int) (string, bool) {
	s, ok := v.(string)
	if !ok || len(s) == 0 || len(s) > max || strings.ContainsRune(s, 0) {
		return "", false
	}
	return s, true
}

// isOne: a JSON number equal to 1 (APNs' mutable-content and content-available flags).
func isOne(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	f, err := n.Float64()
	return err == nil && f == 1
}

func formatTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(timeLayout) }

func lowerHeaders(h map[string]string) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[strings.ToLower(k)] = v
	}
	return out
}

// headersOf reads a JSON object of header values (FCM's apns.headers): strings, and integers as text.
func headersOf(o object) map[string]string {
	out := map[string]string{}
	for k, v := range o {
		switch t := v.(type) {
		case string:
			out[strings.ToLower(k)] = t
		case json.Number:
			if _, err := t.Int64(); err == nil {
				out[strings.ToLower(k)] = t.String()
			}
		}
	}
	return out
}

// deriveReason reads reason and unregistered_at (ms) out of the answer as the server's ProviderResponse
// does: APNs non-2xx reason (and for 410 timestamp); FCM's FcmError errorCode, else error.status; Web
// Push's error text (webpush.go).
func deriveReason(provider string, status int, body []byte) (reason string, unregistered *int64) {
	if provider == "webpush" {
		return webPushReason(status, body), nil
	}
	parsed, ok := parseJSON(body)
	answer, isObject := parsed.(object)
	if !ok || !isObject {
		return "", nil
	}
	if provider == "apns" {
		if status >= 200 && status <= 299 {
			return "", nil
		}
		reason, _ = storable(answer["reason"], identifierBytes)
		if stamp, ok := answer["timestamp"].(json.Number); ok && status == 410 {
			if ms, err := stamp.Int64(); err == nil && ms >= minMs && ms <= maxMs {
				unregistered = &ms
			}
		}
		return reason, unregistered
	}
	failure, ok := answer["error"].(object)
	if !ok {
		return "", nil
	}
	details, _ := failure["details"].([]any)
	for _, d := range details {
		if detail, ok := d.(object); ok && detail["@type"] == fcmErrorType {
			reason, _ = storable(detail["errorCode"], identifierBytes)
			break
		}
	}
	if reason == "" {
		reason, _ = storable(failure["status"], identifierBytes)
	}
	return reason, nil
}

// collapseID: 1 to 64 printable ASCII characters, else nothing (the provider refuses such a request).
func collapseID(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || len(s) == 0 || len(s) > 64 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return "", false
		}
	}
	return s, true
}

// apnsExpiry reads apns-expiration (UNIX seconds) as ms; 0, or a time already past, is "try once, never
// store", which the contract writes as sent_at.
func apnsExpiry(v string, sentMs int64) (int64, bool) {
	if !digitsPattern.MatchString(v) {
		return 0, false
	}
	seconds, err := strconv.ParseInt(v, 10, 64)
	if err != nil || seconds > maxMs/1000 {
		return 0, false
	}
	if ms := seconds * 1000; ms > sentMs {
		return ms, true
	}
	return sentMs, true
}

// ttlExpiry is sent_at plus an FCM ttl duration such as "3600s" or "1.5s".
func ttlExpiry(v any, sentMs int64) (int64, bool) {
	s, _ := v.(string)
	m := durationPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	seconds, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || seconds > maxMs/1000 {
		return 0, false
	}
	fraction, _ := strconv.ParseInt((m[2] + "000")[:3], 10, 64)
	ms := sentMs + seconds*1000 + fraction
	return ms, ms <= maxMs
}

func priority(v string) (int, bool) {
	if !digitsPattern.MatchString(v) || len(v) > 2 {
		return 0, false
	}
	p, _ := strconv.Atoi(v)
	return p, p <= 10
}

// apnsPushType is the apns-push-type header; without one, content-available alone is a background
// push, an alert, badge or sound an alert.
func apnsPushType(header string, aps object) (string, bool) {
	if s, ok := storable(header, shortWordBytes); ok {
		return s, true
	}
	for _, k := range []string{"alert", "badge", "sound"} {
		if v, present := aps[k]; present && v != nil {
			return "alert", true
		}
	}
	return "background", isOne(aps["content-available"])
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func label(v, field string, max int) (string, error) {
	if s, ok := storable(v, max); ok {
		return s, nil
	}
	return "", invalid(field, "%s must be a string of 1 to %d bytes without U+0000", field, max)
}

// common builds the fields every send has, from the caller's Report, the payload's PushLedger keys and
// the answer; it returns the send and sent_at in ms.
func common(appID, defaultChannel, provider, token string, status int, body []byte, r Report,
	payloadNID, payloadChannel any) (object, int64, error) {
	if status != 0 && (status < 100 || status > 599) {
		return nil, 0, invalid("status", "status must be the provider's HTTP status (100 to 599) or 0")
	}
	nid := r.NotificationID
	if nid == "" {
		s, ok := payloadNID.(string)
		if !ok {
			return nil, 0, &ReportError{Code: "missing_field", Field: "notification_id",
				Message: "notification_id is required (in the Report or the payload's notification_id)"}
		}
		nid = s
	}
	if !uuidPattern.MatchString(nid) {
		return nil, 0, invalid("notification_id", "notification_id must be a UUID (8-4-4-4-12 hex)")
	}
	channel := defaultChannel
	if r.Channel != "" {
		c, err := label(r.Channel, "channel", labelBytes)
		if err != nil {
			return nil, 0, err
		}
		channel = c
	} else if c, ok := storable(payloadChannel, labelBytes); ok {
		channel = c
	}
	send := object{"event_id": newUUID(), "notification_id": nid, "app_id": appID, "provider": provider,
		"token": token, "channel": channel}
	for _, f := range []struct {
		key, value string
		max        int
	}{{"campaign", r.Campaign, labelBytes}, {"environment", r.Environment, shortWordBytes}} {
		if f.value != "" {
			v, err := label(f.value, f.key, f.max)
			if err != nil {
				return nil, 0, err
			}
			send[f.key] = v
		}
	}
	if r.InstallationID != "" {
		if !uuidPattern.MatchString(r.InstallationID) {
			return nil, 0, invalid("installation_id", "installation_id must be a UUID (8-4-4-4-12 hex)")
		}
		send["installation_id"] = r.InstallationID
	}
	if r.LatencyMs != nil {
		if *r.LatencyMs < 0 || *r.LatencyMs > 86_400_000 {
			return nil, 0, invalid("latency_ms", "latency_ms must be from 0 to 86400000")
		}
		send["latency_ms"] = *r.LatencyMs
	}
	sentAt := r.SentAt
	if sentAt.IsZero() {
		sentAt = time.Now()
	}
	sentMs := sentAt.UnixMilli()
	send["sent_at"] = formatTime(sentMs)
	send["status"] = status
	if body != nil {
		reason, unregistered := deriveReason(provider, status, body)
		if reason != "" {
			send["reason"] = reason
		}
		if unregistered != nil {
			send["unregistered_at"] = formatTime(*unregistered)
		}
		if utf8.Valid(body) && len(body) <= MaxResponseBodyBytes && !bytes.ContainsRune(body, 0) {
			send["response_body"] = string(body)
		}
	}
	return send, sentMs, nil
}

// apnsSend is the send of one APNs attempt: the request's token, payload and apns-* headers, the
// answer's status and body (nil when no answer came).
func apnsSend(appID, defaultChannel, token string, payload any, headers map[string]string, status int,
	body []byte, r Report) (object, error) {
	if token == "" {
		return nil, &ReportError{Code: "missing_field", Field: "token", Message: "token must be the device token"}
	}
	p, err := jsonObject(payload, "payload")
	if err != nil {
		return nil, err
	}
	request := lowerHeaders(headers)
	aps := obj(p["aps"])
	send, sentMs, err := common(appID, defaultChannel, "apns", token, status, body, r, p["notification_id"],
		p["channel"])
	if err != nil {
		return nil, err
	}
	if id, ok := storable(r.APNsID, identifierBytes); ok {
		send["apns_id"] = id
	} else if id, ok := storable(request["apns-id"], identifierBytes); ok {
		send["apns_id"] = id
	}
	if p, ok := priority(request["apns-priority"]); ok {
		send["priority"] = p
	}
	if t, ok := apnsPushType(request["apns-push-type"], aps); ok {
		send["push_type"] = t
	}
	send["mutable_content"] = isOne(aps["mutable-content"])
	if c, ok := collapseID(request["apns-collapse-id"]); ok {
		send["collapse_id"] = c
	}
	if e, ok := apnsExpiry(request["apns-expiration"], sentMs); ok {
		send["expires_at"] = formatTime(e)
	}
	return send, nil
}

// fcmSend is the send of one FCM HTTP v1 attempt: the message object (or the whole request body
// {"message": …}) and the answer's status and body.
func fcmSend(appID, defaultChannel string, message any, status int, body []byte, r Report) (object, error) {
	m, err := jsonObject(message, "message")
	if err != nil {
		return nil, err
	}
	if inner, ok := m["message"].(object); ok && len(m) == 1 {
		m = inner
	}
	// A Firebase installation ID (fid) stands for the device where a registration token would.
	token, _ := m["token"].(string)
	if token == "" {
		token, _ = m["fid"].(string)
	}
	if token == "" {
		return nil, &ReportError{Code: "missing_field", Field: "token",
			Message: "the message has no device token: report topic and condition sends per device"}
	}
	data := obj(m["data"])
	android := obj(m["android"])
	apnsHeaders := headersOf(obj(obj(m["apns"])["headers"]))
	androidNotification, hasAndroidNotification := android["notification"].(object)
	channel := androidNotification["channel_id"]
	if s, _ := channel.(string); s == "" {
		channel = data["channel"]
	}
	send, sentMs, err := common(appID, defaultChannel, "fcm", token, status, body, r, data["notification_id"], channel)
	if err != nil {
		return nil, err
	}
	androidPriority, _ := android["priority"].(string)
	switch strings.ToUpper(androidPriority) {
	case "HIGH":
		send["priority"] = 10
	case "NORMAL":
		send["priority"] = 5
	default:
		if p, ok := priority(apnsHeaders["apns-priority"]); ok {
			send["priority"] = p
		}
	}
	_, hasNotification := m["notification"].(object)
	hasNotification = hasNotification || hasAndroidNotification
	switch hasData := len(data) > 0; {
	case hasNotification && hasData:
		send["message_kind"] = "hybrid"
	case hasNotification:
		send["message_kind"] = "notification"
	case hasData:
		send["message_kind"] = "data"
	}
	if c, ok := collapseID(android["collapse_key"]); ok {
		send["collapse_id"] = c
	} else if c, ok := collapseID(apnsHeaders["apns-collapse-id"]); ok {
		send["collapse_id"] = c
	}
	if e, ok := ttlExpiry(android["ttl"], sentMs); ok {
		send["expires_at"] = formatTime(e)
	} else if e, ok := apnsExpiry(apnsHeaders["apns-expiration"], sentMs); ok {
		send["expires_at"] = formatTime(e)
	}
	return send, nil
}
