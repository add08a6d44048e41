// Web Push (contract v1.3): what one request to a push service becomes on POST /v1/sends.
// The rows of webpush_rows in Tests/Fixtures/sender-fields.json are the rules; the Python and Node
// libraries run the same rows.

package sender

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// MaxEndpointBytes is the longest subscription endpoint the contract stores.
	MaxEndpointBytes = 2048
	// MaxTTLSeconds is the longest TTL the contract stores: 28 days, the most push services keep a message.
	MaxTTLSeconds = 2_419_200
)

var (
	// The endpoint, as the server reads it: https (in any case), a host after any user info (a name, an IPv4
	// or an [IPv6] address; a port may follow), then anything; printable ASCII without spaces throughout.
	endpointPattern = regexp.MustCompile(
		`^[Hh][Tt][Tt][Pp][Ss]://(?:[^/?#]*@)?(?:\[[^/?#]*\]|[^/?#@:\[][^/?#@:]*)(?:[:/?#].*)?$`)
	printablePattern = regexp.MustCompile(`^[\x21-\x7e]+$`)
	// RFC 8030 §5.4: a topic is at most 32 characters of the URL- and filename-safe base64 alphabet.
	topicPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
	urgencies    = map[string]bool{"very-low": true, "low": true, "normal": true, "high": true}
)

// checkEndpoint refuses what the contract would; the error never repeats the endpoint (the
// subscription's address is the sender's secret).
func checkEndpoint(endpoint string) error {
	if endpoint == "" {
		return &ReportError{Code: "missing_field", Field: "token",
			Message: "endpoint is required (the subscription's endpoint URL)"}
	}
	if len(endpoint) > MaxEndpointBytes || !printablePattern.MatchString(endpoint) ||
		!endpointPattern.MatchString(endpoint) {
		return invalid("token", "endpoint must be the subscription's https:// URL with a host, at most %d bytes of "+
			"printable ASCII", MaxEndpointBytes)
	}
	return nil
}

// cut is text cut to at most max UTF-8 bytes, never inside a character.
func cut(text string, max int) string {
	if len(text) <= max {
		return text
	}
	end := max
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[:end]
}

// webPushReason is the push service's error text: outside 2xx, a JSON body's reason (Apple), else its error
// (Mozilla's autopush), as the server reads response_body; a text body's first non-blank line, trimmed (FCM);
// nothing from an HTML page. Cut to 255 bytes.
func webPushReason(status int, body []byte) string {
	if status == 0 || (status >= 200 && status <= 299) || len(body) == 0 || !utf8.Valid(body) ||
		strings.ContainsRune(string(body), 0) {
		return ""
	}
	line := ""
	if parsed, ok := parseJSON(body); ok {
		answer, isObject := parsed.(object)
		if !isObject {
			return ""
		}
		for _, key := range []string{"reason", "error"} {
			if s, ok := answer[key].(string); ok && strings.TrimSpace(s) != "" {
				line = strings.TrimSpace(s)
				break
			}
		}
	} else {
		text := string(body)
		if strings.HasPrefix(strings.TrimSpace(text), "<") {
			return ""
		}
		for _, l := range strings.FieldsFunc(text, func(c rune) bool { return c == '\n' || c == '\r' }) {
			if s := strings.TrimSpace(l); s != "" {
				line = s
				break
			}
		}
	}
	return cut(line, identifierBytes)
}

// ttlSeconds reads the TTL header; beyond the contract's 28 days, or malformed, it is left out.
func ttlSeconds(v string) (int, bool) {
	if !digitsPattern.MatchString(v) || len(v) > 8 {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n <= MaxTTLSeconds
}

// webPushSend is the send of one Web Push request: the subscription endpoint, the request's TTL, Topic and
// Urgency headers, the push service's status and body (nil when no answer came). The payload is encrypted
// for the browser, so the notification id and channel come from the caller's Report.
func webPushSend(appID, defaultChannel, endpoint string, headers map[string]string, status int, body []byte,
	r Report) (object, error) {
	if err := checkEndpoint(endpoint); err != nil {
		return nil, err
	}
	request := lowerHeaders(headers)
	r.Environment, r.APNsID = "", "" // APNs fields: not Web Push ones
	send, _, err := common(appID, defaultChannel, "webpush", endpoint, status, body, r, nil, nil)
	if err != nil {
		return nil, err
	}
	if n, ok := ttlSeconds(request["ttl"]); ok {
		send["ttl_seconds"] = n
	}
	if topic := request["topic"]; topicPattern.MatchString(topic) {
		send["topic"] = topic
	}
	if urgency := request["urgency"]; urgencies[urgency] {
		send["urgency"] = urgency
	}
	return send, nil
}
