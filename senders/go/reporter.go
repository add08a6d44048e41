// Package sender reports every APNs, FCM and Web Push attempt of a push sender to PushLedger (POST /v1/sends) in
// one call, from the payload it sent and the answer it got. Standard library only.
package sender

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Options tune a Reporter; zero values take the defaults.
type Options struct {
	// DefaultChannel is the channel of a send whose payload names none (default "default").
	DefaultChannel string
	// BatchSize is the most sends in one request, 1 to 2000 (default 500).
	BatchSize int
	// FlushInterval is the longest a send waits before its batch goes out (default 1 s).
	FlushInterval time.Duration
	// MaxQueue is the most sends waiting; past it the oldest is dropped and counted (default 10,000).
	MaxQueue int
	// Timeout bounds one upload (default 10 s).
	Timeout time.Duration
	// Logf receives warnings (never a key or a token); default log.Printf, func(string, ...any) {} for none.
	Logf func(format string, args ...any)
}

// Stats are a Reporter's counters since it started, and the sends waiting now.
type Stats struct {
	Reported, Accepted, Duplicates, Rejected, Invalid, Dropped, Retries, Unauthorized, Queued int
}

type entry struct {
	seq  uint64
	send object
}

// Reporter reports APNs, FCM and Web Push attempts to PushLedger. APNs, FCM and WebPush only check their
// arguments and queue the send; a goroutine posts batches, gzip-compressed, retried on network errors, 429 and 5xx
// (the server's Retry-After, else backoff); a batch answered 413 is halved; while the key is refused
// (401/403) the sends are held, tried again every 30 s or at once after SetKey. Each send keeps its
// event_id across retries, so the server stores it once. Nothing blocks or panics into the caller's
// send path: a bad argument comes back as a *ReportError.
type Reporter struct {
	endpoint, appID string
	opts            Options
	client          *http.Client

	mu              sync.Mutex
	key             string
	queue           []entry // a batch is taken afresh from the front at each try
	nextSeq         uint64
	limit           int
	busy            bool
	flushRequested  bool
	closing         bool
	keyRefusedUntil time.Time
	stats           Stats

	work      chan struct{} // new sends or a flush: ends an idle wait
	interrupt chan struct{} // a new key or closing: also ends a backoff
	done      chan struct{}
}

// New starts a Reporter for the PushLedger server at url, with a key of scope sends for appID.
func New(url, key, appID string, opts Options) (*Reporter, error) {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, errors.New("pushledger: url must be the server's http:// or https:// URL")
	}
	if appID == "" {
		return nil, errors.New("pushledger: appID must be the key's app id")
	}
	if opts.DefaultChannel == "" {
		opts.DefaultChannel = "default"
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = 500
	}
	if opts.FlushInterval == 0 {
		opts.FlushInterval = time.Second
	}
	if opts.MaxQueue == 0 {
		opts.MaxQueue = 10_000
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.BatchSize < 1 || opts.BatchSize > 2000 || opts.MaxQueue < opts.BatchSize {
		return nil, errors.New("pushledger: BatchSize must be 1 to 2000 and MaxQueue at least BatchSize")
	}
	r := &Reporter{endpoint: strings.TrimRight(url, "/") + "/v1/sends", appID: appID, opts: opts,
		client: &http.Client{Timeout: opts.Timeout}, key: key, limit: opts.BatchSize,
		work: make(chan struct{}, 1), interrupt: make(chan struct{}, 1), done: make(chan struct{})}
	go r.run()
	return r, nil
}

// APNs reports one APNs attempt: the device token, the payload as sent (JSON bytes or a value that
// marshals to the object), the request's apns-* headers, the answer's status (0 when no answer came)
// and body (nil when no answer came). Nil when queued, else a *ReportError.
func (r *Reporter) APNs(token string, payload any, headers map[string]string, status int, body []byte,
	report Report) error {
	return r.enqueue(func() (object, error) {
		return apnsSend(r.appID, r.opts.DefaultChannel, token, payload, headers, status, body, report)
	})
}

// FCM reports one FCM HTTP v1 attempt: the message as sent (its token is the device), the answer's status
// and body. An empty NotificationID takes message.data.notification_id; an empty Channel takes
// message.android.notification.channel_id, then message.data.channel, else the default.
func (r *Reporter) FCM(message any, status int, body []byte, report Report) error {
	return r.enqueue(func() (object, error) {
		return fcmSend(r.appID, r.opts.DefaultChannel, message, status, body, report)
	})
}

// WebPush reports one Web Push request: the subscription's endpoint (an https:// URL; the send's token), the
// request's headers (TTL, Topic and Urgency are read; names in any case), the push service's status (201
// created; 0 when no answer came) and body (nil when no answer came). The payload is encrypted for the
// browser, so report.NotificationID is required; an empty Channel is the default. Nil when queued, else a
// *ReportError whose message never holds the endpoint.
func (r *Reporter) WebPush(endpoint string, headers map[string]string, status int, body []byte, report Report) error {
	return r.enqueue(func() (object, error) {
		return webPushSend(r.appID, r.opts.DefaultChannel, endpoint, headers, status, body, report)
	})
}

// Flush posts what is queued now and waits until nothing is left waiting or ctx ends (then an error).
// Never call it on the send path.
func (r *Reporter) Flush(ctx context.Context) error {
	r.mu.Lock()
	r.flushRequested = true
	r.mu.Unlock()
	signal(r.work)
	ticker := time.NewTicker(5 * time.Millisecond)
	defer ticker.Stop()
	for {
		r.mu.Lock()
		left, busy := len(r.queue), r.busy
		r.mu.Unlock()
		if left == 0 && !busy {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pushledger: %d sends not stored yet: %w", left, ctx.Err())
		case <-ticker.C:
		}
	}
}

// Close flushes until ctx ends and stops the goroutine; later reports return a closed error. The error
// says how many sends were not stored.
func (r *Reporter) Close(ctx context.Context) error {
	err := r.Flush(ctx)
	r.mu.Lock()
	already := r.closing
	r.closing = true
	r.mu.Unlock()
	if !already {
		signal(r.interrupt)
		<-r.done
	}
	return err
}

// SetKey replaces the sends key (after a rotation); sends held since the old key was refused go out.
func (r *Reporter) SetKey(key string) {
	r.mu.Lock()
	r.key = key
	r.keyRefusedUntil = time.Time{}
	r.mu.Unlock()
	signal(r.interrupt)
}

// Stats returns the counters.
func (r *Reporter) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	s.Queued = len(r.queue)
	return s
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (r *Reporter) enqueue(build func() (object, error)) (err error) {
	defer func() {
		if p := recover(); p != nil { // a bug here must not break the caller's send path
			r.opts.Logf("pushledger: report could not be built: %v", p)
			err = &ReportError{Code: "invalid_field", Message: "the report could not be built"}
		}
	}()
	send, err := build()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.stats.Invalid++
		r.opts.Logf("pushledger: report refused: %v", err)
		return err
	}
	if r.closing {
		return &ReportError{Code: "closed", Message: "the reporter is closed"}
	}
	if len(r.queue) >= r.opts.MaxQueue {
		r.queue = r.queue[1:]
		r.stats.Dropped++
	}
	r.queue = append(r.queue, entry{seq: r.nextSeq, send: send})
	r.nextSeq++
	r.stats.Reported++
	if len(r.queue) == 1 || len(r.queue) >= r.limit {
		signal(r.work)
	}
	return nil
}

// wait sleeps for d (forever when negative) or until interrupted; work ends it too unless backingOff.
func (r *Reporter) wait(d time.Duration, backingOff bool) {
	var timeout <-chan time.Time
	if d >= 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		timeout = timer.C
	}
	work := r.work
	if backingOff {
		work = nil
	}
	select {
	case <-timeout:
	case <-work:
	case <-r.interrupt:
	}
}

func (r *Reporter) run() {
	defer close(r.done)
	attempt := 0
	var deadline time.Time // the interval runs from the first send waiting
	for {
		r.mu.Lock()
		if r.closing {
			r.mu.Unlock()
			return
		}
		now := time.Now()
		ready, wait := false, time.Duration(-1)
		switch {
		case now.Before(r.keyRefusedUntil):
			wait = r.keyRefusedUntil.Sub(now)
		case len(r.queue) == 0:
			deadline = time.Time{}
		default:
			if deadline.IsZero() {
				deadline = now.Add(r.opts.FlushInterval)
			}
			ready = attempt > 0 || r.flushRequested || len(r.queue) >= r.limit || !now.Before(deadline)
			wait = deadline.Sub(now)
		}
		if !ready {
			r.mu.Unlock()
			r.wait(wait, false)
			continue
		}
		n := r.limit
		if n > len(r.queue) {
			n = len(r.queue)
		}
		batch := make([]object, n)
		for i := range batch {
			batch[i] = r.queue[i].send
		}
		lastSeq, key := r.queue[n-1].seq, r.key
		r.busy = true
		r.mu.Unlock()

		outcome, retryAfter := r.post(batch, key)

		r.mu.Lock()
		r.busy = false
		delay := time.Duration(0)
		switch {
		case outcome == Stored || outcome == Refused || (outcome == Split && n == 1):
			if outcome != Stored {
				r.stats.Dropped += n
			}
			for len(r.queue) > 0 && r.queue[0].seq <= lastSeq {
				r.queue = r.queue[1:]
			}
			attempt, deadline = 0, time.Time{}
			if len(r.queue) == 0 {
				r.flushRequested = false
			}
		case outcome == Split:
			r.limit = n / 2
		case outcome == Unauthorized:
			r.stats.Unauthorized++
			// Held, not dropped: the key may be fixed on the server's side (created, restored); SetKey resumes at once.
			if key == r.key {
				r.keyRefusedUntil = time.Now().Add(time.Duration(MaxDelay * float64(time.Second)))
			}
		default:
			attempt++
			r.stats.Retries++
			delay = time.Duration(RetryDelay(attempt, retryAfter, rand.Float64()) * float64(time.Second))
		}
		r.mu.Unlock()
		if delay > 0 {
			r.wait(delay, true)
		}
	}
}

// post makes one upload and returns its outcome and Retry-After; it counts what a stored answer says.
func (r *Reporter) post(batch []object, key string) (string, string) {
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	if err := json.NewEncoder(zw).Encode(map[string]any{"sends": batch}); err != nil {
		r.opts.Logf("pushledger: sends could not be written as JSON: %v", err)
		return Unexpected, ""
	}
	_ = zw.Close()
	req, err := http.NewRequest(http.MethodPost, r.endpoint, &body)
	if err != nil {
		return Unexpected, ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("User-Agent", "pushledger-sender-go/0.1")
	resp, err := r.client.Do(req)
	if err != nil {
		r.opts.Logf("pushledger: upload of %d sends got no answer", len(batch))
		return Retry, ""
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Retry, ""
	}
	contentType := resp.Header.Get("Content-Type")
	outcome := Classify(resp.StatusCode, contentType, answer)
	if outcome == Stored {
		var stored struct {
			Accepted, Duplicates int
			Rejected             []struct{ Error, Message string }
		}
		_ = json.Unmarshal(answer, &stored)
		r.mu.Lock()
		r.stats.Accepted += stored.Accepted
		r.stats.Duplicates += stored.Duplicates
		r.stats.Rejected += len(stored.Rejected)
		r.mu.Unlock()
		for i, rejected := range stored.Rejected {
			if i < 10 {
				r.opts.Logf("pushledger: send rejected: %s %s", rejected.Error, rejected.Message)
			}
		}
	} else if resp.StatusCode != 429 {
		r.opts.Logf("pushledger: upload of %d sends answered %d (%s)", len(batch), resp.StatusCode, outcome)
	}
	return outcome, resp.Header.Get("Retry-After")
}
