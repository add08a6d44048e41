package sender_test

// The senders' guide's Go snippets (docs/integrations/senders.md): each is a region of this file, checked
// against the guide by TestGuideBlocksAreTheExamples and run by TestGuideExamples.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	sender "pushledger.dev/sender"
)

// guide:begin go
// reportAttempts is the one call per provider: after each APNs request the token, payload and apns-*
// headers sent with the status and body received; after each FCM HTTP v1 request the message sent.
func reportAttempts(ctx context.Context, url, key, token string, payload map[string]any, headers map[string]string,
	status int, body []byte, message map[string]any, notificationID, fcmNotificationID string) error {
	reporter, err := sender.New(url, key, "com.example.shop", sender.Options{})
	if err != nil {
		return err
	}
	if err := reporter.APNs(token, payload, headers, status, body,
		sender.Report{NotificationID: notificationID, Channel: "orders"}); err != nil {
		return err // a *sender.ReportError: which argument is wrong; nothing was queued
	}
	_ = reporter.FCM(message, 200, []byte(`{"name":"projects/shop/messages/1"}`),
		sender.Report{NotificationID: fcmNotificationID})
	return reporter.Close(ctx) // at shutdown: what is still queued goes out
}

// guide:end

// guide:begin go-http2
// pushAPNs sends one notification to APNs over net/http (HTTP/2 on TLS; origin https://api.push.apple.com)
// and reports the attempt, answered or not. The authorization header stays out of the report.
func pushAPNs(ctx context.Context, client *http.Client, reporter *sender.Reporter, origin, token string,
	payload []byte, headers map[string]string, authorization string, report sender.Report) (int, error) {
	report.SentAt = time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, origin+"/3/device/"+token, bytes.NewReader(payload))
	if err != nil {
		return 0, err
	}
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	req.Header.Set("authorization", authorization)
	resp, err := client.Do(req)
	if err != nil {
		_ = reporter.APNs(token, payload, headers, 0, nil, report) // no answer: status 0
		return 0, err
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	report.APNsID = resp.Header.Get("apns-id")
	report.LatencyMs = new(int)
	*report.LatencyMs = int(time.Since(report.SentAt).Milliseconds())
	_ = reporter.APNs(token, payload, headers, resp.StatusCode, body.Bytes(), report)
	return resp.StatusCode, nil
}

// guide:end

// guide:begin go-fcm
// pushFCM sends one FCM HTTP v1 message over net/http (origin https://fcm.googleapis.com) and reports the
// attempt. The OAuth authorization header stays out of the report.
func pushFCM(ctx context.Context, client *http.Client, reporter *sender.Reporter, origin, projectID string,
	message map[string]any, authorization string, report sender.Report) (int, error) {
	report.SentAt = time.Now()
	body, err := json.Marshal(map[string]any{"message": message})
	if err != nil {
		return 0, err
	}
	url := origin + "/v1/projects/" + projectID + "/messages:send"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("authorization", authorization)
	resp, err := client.Do(req)
	if err != nil {
		_ = reporter.FCM(message, 0, nil, report) // no answer: status 0
		return 0, err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	_ = reporter.FCM(message, resp.StatusCode, answer, report)
	return resp.StatusCode, nil
}

// guide:end
