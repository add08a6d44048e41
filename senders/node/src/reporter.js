// The reporter: one call per attempt, batches posted to PushLedger in the background.
import { gzipSync } from 'node:zlib';
import { ReportError, apnsSend, fcmSend, webpushSend } from './fields.js';
import { MAX_DELAY_S, classify, parseAnswer, retryDelay } from './upload.js';

const COUNTERS = ['reported', 'accepted', 'duplicates', 'rejected', 'invalid', 'dropped', 'retries', 'unauthorized'];

/** A timer that does not keep the process alive, and can be woken early. */
function sleep(ms, wake) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    wake.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Reports APNs, FCM and Web Push attempts to PushLedger (`POST /v1/sends`).
 *
 * `apns()`, `fcm()` and `webpush()` only check the arguments and queue the send; batches of up to `batchSize`
 * sends go out at least every `flushIntervalMs`, gzip-compressed, retried on network errors, 429 and
 * 5xx (the server's Retry-After, else backoff); a batch answered 413 is halved; while the key is
 * refused (401/403) the sends are held, tried again every 30 s or at once after `setKey()`. At most
 * `maxQueue` sends wait; past that the oldest is dropped and counted. Each send keeps its `event_id`
 * across retries, so the server stores it once. Nothing throws into the caller's send path: a bad
 * argument comes back as a `ReportError` value. Timers do not hold the process open; before it exits
 * on its own the reporter flushes for up to `closeTimeoutMs`.
 */
export class Reporter {
  #endpoint; #key; #ctx; #batchSize; #intervalMs; #maxQueue; #timeoutMs; #closeTimeoutMs; #logger;
  #queue = []; // [sequence, send]; a batch is taken afresh from the front at each try
  #nextSeq = 0;
  #limit;
  #timer = null;
  #running = false;
  #flushRequested = false;
  #closing = false;
  #keyRefusedUntil = 0;
  #wake = [];
  #idle = [];
  #stats = Object.fromEntries(COUNTERS.map((c) => [c, 0]));
  #onExit;

  /**
   * @param {string} url the PushLedger server, e.g. https://pushledger.example.com
   * @param {string} key a key of scope `sends`
   * @param {string} appId the key's app id
   * @param {{defaultChannel?: string, batchSize?: number, flushIntervalMs?: number, maxQueue?: number,
   *   timeoutMs?: number, closeTimeoutMs?: number, logger?: {warn: (msg: string) => void} | null}} [options]
   */
  constructor(url, key, appId, options = {}) {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw new TypeError("url must be the PushLedger server's http:// or https:// URL");
    }
    if (typeof appId !== 'string' || appId === '') throw new TypeError("appId must be the key's app id");
    const { defaultChannel = 'default', batchSize = 500, flushIntervalMs = 1000, maxQueue = 10_000,
      timeoutMs = 10_000, closeTimeoutMs = 5000, logger = console } = options;
    if (!(batchSize >= 1 && batchSize <= 2000) || maxQueue < batchSize) {
      throw new RangeError("batchSize must be 1 to 2000 (the server's limit) and maxQueue at least batchSize");
    }
    this.#endpoint = url.replace(/\/+$/, '') + '/v1/sends';
    this.#key = key;
    this.#ctx = { appId, defaultChannel };
    this.#batchSize = batchSize;
    this.#limit = batchSize;
    this.#intervalMs = flushIntervalMs;
    this.#maxQueue = maxQueue;
    this.#timeoutMs = timeoutMs;
    this.#closeTimeoutMs = closeTimeoutMs;
    this.#logger = logger;
    this.#onExit = () => {
      if (this.#queue.length) this.close();
    };
    process.on('beforeExit', this.#onExit);
  }

  /**
   * Reports one APNs attempt: the device token, the payload as sent (object or JSON text), the request's
   * apns-* headers, the answer's status (0 when no answer came) and body (text, bytes or parsed JSON; null
   * when no answer came). `notificationId` absent takes the payload's `notification_id`; `channel` absent
   * the payload's `channel`, else the default. `sentAt` is when the request was made (default: now).
   * @returns {ReportError|null} null when queued
   */
  apns(token, payload, headers, status, body = null, options = {}) {
    return this.#report(() => apnsSend(this.#ctx, token, payload, headers, status, body, options));
  }

  /**
   * Reports one FCM HTTP v1 attempt: the `message` as sent (its `token` is the device), the answer's status
   * and body. `notificationId` absent takes `message.data.notification_id`; `channel` absent takes
   * `message.android.notification.channel_id`, then `message.data.channel`, else the default.
   * @returns {ReportError|null} null when queued
   */
  fcm(message, status, body = null, options = {}) {
    return this.#report(() => fcmSend(this.#ctx, message, status, body, options));
  }

  /**
   * Reports one Web Push request: the subscription's endpoint (an https:// URL; the send's token), the
   * request's headers (TTL, Topic and Urgency are read; names in any case; an object, a Map or fetch's
   * Headers), the push service's status (201 created; 0 when no answer came) and body (null when no answer
   * came). The payload is encrypted for the browser, so `notificationId` is required; `channel` absent is
   * the default.
   * @returns {ReportError|null} null when queued; the error's message never holds the endpoint
   */
  webpush(endpoint, headers, status, body = null, options = {}) {
    return this.#report(() => webpushSend(this.#ctx, endpoint, headers, status, body, options));
  }

  /** Posts what is queued now; resolves true once nothing waits, false after `timeoutMs`. */
  async flush(timeoutMs = 5000) {
    this.#flushRequested = true;
    this.#start();
    if (this.#drained()) return true;
    let timer;
    const timedOut = new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const drained = new Promise((resolve) => this.#idle.push(() => resolve(true)));
    const result = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    return result && this.#drained();
  }

  /** Flushes for up to `timeoutMs` and stops; later reports return a `closed` error. True when all was stored. */
  async close(timeoutMs = this.#closeTimeoutMs) {
    if (this.#closing) return this.#drained();
    const drained = await this.flush(timeoutMs);
    this.#closing = true;
    process.off('beforeExit', this.#onExit);
    clearTimeout(this.#timer);
    this.#wake.splice(0).forEach((wake) => wake());
    if (this.#queue.length) this.#warn(`closed with ${this.#queue.length} sends not stored`);
    return drained;
  }

  /** Replaces the sends key (after a rotation); sends held since the old key was refused go out. */
  setKey(key) {
    this.#key = key;
    this.#keyRefusedUntil = 0;
    this.#wake.splice(0).forEach((wake) => wake());
    this.#start();
  }

  /** Counters since the start, and `queued` now. */
  stats() {
    return { ...this.#stats, queued: this.#queue.length };
  }

  #drained() {
    return this.#queue.length === 0 && !this.#running;
  }

  #warn(message) {
    this.#logger?.warn(`pushledger-sender: ${message}`);
  }

  #report(build) {
    let send;
    try {
      send = build();
    } catch (error) {
      if (error instanceof ReportError) {
        this.#stats.invalid += 1;
        this.#warn(`report refused: ${error.message}`);
        return error;
      }
      this.#warn(`report could not be built (${error?.name})`);
      return new ReportError('invalid_field', null, `the report could not be built (${error?.name})`);
    }
    if (this.#closing) return new ReportError('closed', null, 'the reporter is closed');
    if (this.#queue.length >= this.#maxQueue) {
      this.#queue.shift();
      this.#stats.dropped += 1;
    }
    this.#queue.push([this.#nextSeq++, send]);
    this.#stats.reported += 1;
    if (this.#queue.length >= this.#limit) this.#start();
    else if (this.#timer === null && !this.#running) {
      this.#timer = setTimeout(() => this.#start(), this.#intervalMs);
      this.#timer.unref();
    }
    return null;
  }

  #start() {
    clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#running || this.#closing) return;
    this.#running = true;
    this.#drain().catch((error) => this.#warn(`upload loop failed (${error?.name})`)).finally(() => {
      this.#running = false;
      this.#idle.splice(0).forEach((resolve) => resolve());
    });
  }

  async #drain() {
    let attempt = 0;
    while (this.#queue.length && !this.#closing) {
      const refusedFor = this.#keyRefusedUntil - Date.now();
      if (refusedFor > 0) {
        await sleep(refusedFor, this.#wake);
        continue;
      }
      const batch = this.#queue.slice(0, this.#limit);
      const lastSeq = batch[batch.length - 1][0];
      const key = this.#key;
      const [outcome, retryAfter] = await this.#post(batch.map(([, send]) => send), key);
      if (outcome === 'stored' || outcome === 'refused' || (outcome === 'split' && batch.length === 1)) {
        if (outcome !== 'stored') this.#stats.dropped += batch.length;
        while (this.#queue.length && this.#queue[0][0] <= lastSeq) this.#queue.shift();
        attempt = 0;
      } else if (outcome === 'split') {
        this.#limit = Math.max(1, Math.floor(batch.length / 2));
      } else if (outcome === 'unauthorized') {
        this.#stats.unauthorized += 1;
        // Held, not dropped: the key may be fixed on the server's side (created, restored); setKey resumes at once.
        if (key === this.#key) this.#keyRefusedUntil = Date.now() + MAX_DELAY_S * 1000;
      } else {
        attempt += 1;
        this.#stats.retries += 1;
        await sleep(retryDelay(attempt, retryAfter, Math.random()) * 1000, this.#wake);
      }
    }
    this.#flushRequested = false;
  }

  /** One upload; [outcome, Retry-After]. Counts what a stored answer says. */
  async #post(batch, key) {
    let response;
    let text;
    try {
      response = await fetch(this.#endpoint, {
        method: 'POST',
        body: gzipSync(JSON.stringify({ sends: batch })),
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', Authorization: `Bearer ${key}`,
          'User-Agent': 'pushledger-sender-node/0.1' },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      this.#warn(`upload of ${batch.length} sends got no answer (${error?.name})`);
      return ['retry', null];
    }
    const contentType = response.headers.get('content-type');
    const outcome = classify(response.status, contentType, text);
    if (outcome === 'stored') {
      const answer = parseAnswer(contentType, text);
      const rejected = Array.isArray(answer.rejected) ? answer.rejected : [];
      this.#stats.accepted += answer.accepted;
      this.#stats.duplicates += Number.isInteger(answer.duplicates) ? answer.duplicates : 0;
      this.#stats.rejected += rejected.length;
      for (const item of rejected.slice(0, 10)) this.#warn(`send rejected: ${item?.error} ${item?.message}`);
    } else if (response.status !== 429) {
      this.#warn(`upload of ${batch.length} sends answered ${response.status} (${outcome})`);
    }
    return [outcome, response.headers.get('retry-after')];
  }
}
