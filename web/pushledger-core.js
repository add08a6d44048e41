// PushLedger browser SDK, pure core: the contract's limits, the server's judgement of a telemetry body
// (docs/contract.md), the shared retry rule, what each upload answer means, batching and the flush loop.
// No DOM, no IndexedDB: the page, the service worker and Node's test runner load the same file.
// A classic script on purpose: `importScripts` (classic service workers) cannot load ES modules, and an
// ES module can import this file for its side effect. It defines `globalThis.PushLedgerCore`.
(function (root) {
  'use strict';

  const SDK_VERSION = '0.1.0';

  /** The server's default limits (docs/contract.md, Limits). */
  const LIMITS = Object.freeze({
    maxBodyBytes: 1048576,
    maxEventsPerRequest: 2000,
    maxEventBytes: 32768,
    maxAgeMs: 30 * 86400000,
    maxFutureMs: 86400000,
  });

  /** Browsers refuse a keepalive request once the keepalive bodies in flight pass 64 KiB. */
  const KEEPALIVE_BYTES = 65536;

  /**
   * The upload retry rule shared by every SDK; a copy of Tests/Fixtures/retry-delays.json's policy (a test
   * checks that the two are equal).
   */
  const RETRY_POLICY = Object.freeze({ base_delay_s: 0.5, max_delay_s: 30, max_retry_after_s: 60 });

  /** The 400 codes with which PushLedger refuses a request whole: the only 400s that may drop events. */
  const REFUSAL_CODES = Object.freeze(['invalid_json', 'invalid_gzip', 'missing_field', 'invalid_field', 'unstorable']);

  const TYPES = Object.freeze(['notification_settings', 'permission_prompt', 'experiment_exposure', 'push_token',
    'notification_received', 'notification_opened', 'notification_dismissed']);
  const PLATFORMS = ['ios', 'android', 'web'];
  const BROWSERS = ['chrome', 'edge', 'firefox', 'safari', 'samsung', 'opera', 'other'];
  const IOS_AUTHORIZATION = ['not_determined', 'denied', 'authorized', 'provisional', 'ephemeral'];
  const WEB_AUTHORIZATION = ['authorized', 'denied', 'not_determined'];
  const SETTING = ['enabled', 'disabled', 'not_supported'];
  const IOS_SETTINGS = ['alert_setting', 'sound_setting', 'badge_setting', 'lock_screen_setting',
    'notification_center_setting', 'time_sensitive_setting', 'scheduled_delivery_setting'];
  const PROMPT_RESULTS = ['granted', 'provisional', 'denied', 'dismissed', 'already_determined'];
  const WEB_PROMPT_RESULTS = ['granted', 'denied', 'dismissed', 'already_determined'];
  const PROVIDERS = ['apns', 'fcm', 'webpush'];
  const IMPORTANCES = [-1000, 0, 1, 2, 3, 4, 5];
  const LABEL = 255, IDENTIFIER = 255, VERSION = 128, LINK = 4096, APP_ID = 255, ENDPOINT = 2048;

  const encoder = new TextEncoder();
  const utf8 = (text) => encoder.encode(text).length;
  const own = (object, key) => (Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined);
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

  function kind(v) {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return 'a boolean';
    if (typeof v === 'number') return 'a number';
    if (typeof v === 'string') return 'a string';
    return Array.isArray(v) ? 'an array' : 'an object';
  }

  // ---- Values (docs/contract.md, Values) ----

  const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
  const isUuid = (s) => typeof s === 'string' && UUID.test(s);
  const isSlug = (s) => typeof s === 'string' && /^[a-z0-9_]{1,64}$/.test(s);
  const isPrintable = (s) => /^[\x20-\x7e]*$/.test(s);
  const isApnsToken = (s) => s.length >= 64 && s.length <= 200 && s.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(s);
  const isFcmToken = (s) => s.length >= 1 && s.length <= 4096 && isPrintable(s);

  /** A push subscription endpoint as the server takes it: an absolute https URL with a host, no spaces. */
  function isEndpoint(s) {
    return s.length >= 1 && s.length <= ENDPOINT && /^[\x21-\x7e]*$/.test(s) && endpointHost(s) !== null;
  }

  /** The lower-cased host of an `https://` URL (without user info or port), or null: the server's reading. */
  function endpointHost(s) {
    if (s.length <= 8 || s.slice(0, 8).toLowerCase() !== 'https://') return null;
    const authority = /^[^/?#]*/.exec(s.slice(8))[0];
    const hostAndPort = authority.split('@').pop();
    let host;
    if (hostAndPort.startsWith('[')) {
      const close = hostAndPort.indexOf(']');
      if (close < 0) return null;
      host = hostAndPort.slice(0, close + 1);
    } else {
      host = hostAndPort.split(':')[0];
    }
    return host ? host.toLowerCase() : null;
  }

  const MAX_MICROS = 253402300799999999; // 9999-12-31T23:59:59.999999Z
  const MIN_MICROS = -62135596800000000; // 0001-01-01T00:00:00Z

  /** Microseconds since 1970 of an RFC 3339 time as the server reads it, or null. */
  function parseTime(s) {
    const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/.exec(s);
    if (!m) return null;
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
    const days = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30,
      31, 30, 31];
    if (month < 1 || month > 12 || day < 1 || day > days[month - 1] || hour >= 24 || minute >= 60 || second > 60) {
      return null;
    }
    let offset = 0;
    if (m[8] !== 'Z' && m[8] !== 'z') {
      const oh = Number(m[8].slice(1, 3)), om = Number(m[8].slice(4, 6));
      if (oh >= 24 || om >= 60) return null;
      offset = (oh * 60 + om) * 60 * (m[8][0] === '-' ? -1 : 1);
    }
    const micros = m[7] ? Number(m[7].slice(0, 6).padEnd(6, '0')) : 0;
    // Date.UTC maps years 0-99 to 1900-1999: set the year afterwards.
    const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, 0));
    date.setUTCFullYear(year);
    const value = (date.getTime() / 1000 + second - offset) * 1e6 + micros;
    return value < MIN_MICROS || value > MAX_MICROS ? null : value;
  }

  /** `2026-11-30T10:00:05.120000Z` of microseconds since 1970. */
  function formatTime(micros) {
    const ms = Math.floor(micros / 1000);
    const iso = new Date(ms).toISOString();
    const rest = String(Math.floor(micros - ms * 1000)).padStart(3, '0');
    return iso.slice(0, -1) + rest + 'Z';
  }

  // ---- Fields: the first missing and the first invalid field, missing first (docs/contract.md) ----

  class FieldReader {
    constructor(object, path) {
      this.object = object;
      this.path = path;
      this.missing = null;
      this.invalid = null;
    }

    failure() {
      if (this.missing) return { code: 'missing_field', message: this.missing };
      if (this.invalid) return { code: 'invalid_field', message: this.invalid };
      return null;
    }

    noteInvalid(key, problem) {
      if (!this.invalid) this.invalid = `invalid field "${this.path}${key}": ${problem}`;
    }

    merge(nested) {
      this.missing = this.missing || nested.missing;
      this.invalid = this.invalid || nested.invalid;
    }

    /** The converted value, or undefined (noting a missing or an invalid field). */
    read(key, required, expected, convert) {
      const value = own(this.object, key);
      if (value === undefined || value === null) {
        if (required && !this.missing) this.missing = `missing field "${this.path}${key}"`;
        return undefined;
      }
      const converted = convert(value);
      if (converted !== undefined) return converted;
      this.noteInvalid(key, typeof value === 'string' ? `expected ${expected}`
        : `expected ${expected}, got ${kind(value)}`);
      return undefined;
    }

    string(key, required, maxBytes) {
      const text = this.read(key, required, 'a string', (v) => (typeof v === 'string' ? v : undefined));
      if (text === undefined) return undefined;
      const count = utf8(text);
      const problem = count === 0 ? 'expected a non-empty string'
        : count > maxBytes ? `expected at most ${maxBytes} bytes, got ${count}`
          : text.includes('\u0000') ? 'must not contain U+0000' : null;
      if (problem) {
        this.noteInvalid(key, problem);
        return undefined;
      }
      return text;
    }

    uuid(key, required) {
      return this.read(key, required, 'a UUID (8-4-4-4-12 hex)', (v) => (isUuid(v) ? v.toLowerCase() : undefined));
    }

    time(key, required) {
      return this.read(key, required, 'an RFC 3339 time such as 2026-11-30T10:00:05.120Z',
        (v) => (typeof v === 'string' ? (parseTime(v) ?? undefined) : undefined));
    }

    bool(key, required) {
      return this.read(key, required, 'true or false', (v) => (typeof v === 'boolean' ? v : undefined));
    }

    integer(key, required, min, max) {
      return this.read(key, required, `an integer from ${min} to ${max}`,
        (v) => (Number.isInteger(v) && v >= min && v <= max ? v : undefined));
    }

    choice(key, required, words) {
      return this.read(key, required, `one of ${words.join(', ')}`,
        (v) => (typeof v === 'string' && words.includes(v) ? v : undefined));
    }

    slug(key, required) {
      return this.read(key, required, 'a slug of 1 to 64 characters a-z, 0-9 or _', (v) => (isSlug(v) ? v : undefined));
    }

    array(key, required) {
      return this.read(key, required, 'an array', (v) => (Array.isArray(v) ? v : undefined));
    }
  }

  // ---- The server's judgement of one event and of a whole body ----

  /** Reads a known type's fields for `platform`, noting failures in `r`. */
  function payload(type, platform, r) {
    switch (type) {
      case 'notification_settings':
        if (platform === 'ios') {
          r.choice('authorization_status', true, IOS_AUTHORIZATION);
          for (const key of IOS_SETTINGS) r.choice(key, false, SETTING);
          r.choice('alert_style', false, ['none', 'banner', 'alert']);
          r.bool('low_power_mode', false);
        } else if (platform === 'web') {
          r.choice('authorization_status', true, WEB_AUTHORIZATION);
          r.choice('push_permission_state', false, ['granted', 'denied', 'prompt']);
          r.choice('display_mode', false, ['browser', 'standalone']);
          r.choice('subscription', false, ['active', 'none', 'expired']);
        } else {
          r.bool('notifications_enabled', true);
          r.choice('post_notifications', false, ['granted', 'denied', 'not_required']);
          const channels = r.array('channels', false);
          if (channels) readChannels(channels, r);
          r.choice('standby_bucket', false, ['active', 'working_set', 'frequent', 'rare', 'restricted']);
          r.bool('background_restricted', false);
          r.bool('ignoring_battery_optimizations', false);
          r.bool('force_stopped_before_start', false);
        }
        break;
      case 'permission_prompt':
        r.slug('placement', true);
        r.choice('prompt', true, ['system', 'primer']);
        r.choice('result', true, platform === 'web' ? WEB_PROMPT_RESULTS : PROMPT_RESULTS);
        break;
      case 'experiment_exposure':
        r.slug('experiment', true);
        r.slug('variant', true);
        break;
      case 'push_token':
        readPushToken(r, platform);
        break;
      case 'notification_received':
        r.uuid('notification_id', true);
        r.string('channel', false, LABEL);
        r.bool('displayed', false);
        break;
      case 'notification_dismissed':
        r.uuid('notification_id', true);
        r.string('channel', false, LABEL);
        break;
      default: // notification_opened
        r.uuid('notification_id', true);
        r.string('action', true, IDENTIFIER);
        r.string('link', false, LINK);
        r.choice('landed', false, ['target', 'fallback', 'rejected']);
    }
  }

  /** A provider valid on the platform (webpush only on web, the others never there), its token valid for it. */
  function readPushToken(r, platform) {
    const expected = `${platform === 'web' ? 'webpush' : 'apns or fcm'} on platform ${platform}`;
    const provider = r.read('provider', true, expected,
      (v) => (PROVIDERS.includes(v) && (v === 'webpush') === (platform === 'web') ? v : undefined));
    const rules = {
      apns: ['an APNs token: hex of even length 64 to 200', isApnsToken],
      fcm: ['an FCM token: 1 to 4096 printable ASCII characters', isFcmToken],
      webpush: ['an https push subscription endpoint (at most 2048 bytes)', isEndpoint],
    }[provider] ?? ['a string', () => true];
    r.read('token', true, rules[0], (v) => (typeof v === 'string' && rules[1](v) ? v : undefined));
    if (provider === 'apns') r.choice('environment', false, ['production', 'sandbox']);
  }

  function readChannels(list, r) {
    const ids = new Set();
    list.forEach((element, index) => {
      if (!isObject(element)) {
        r.noteInvalid(`channels[${index}]`, `expected an object, got ${kind(element)}`);
        return;
      }
      const c = new FieldReader(element, `channels[${index}].`);
      const id = c.string('id', true, LABEL);
      c.read('importance', true, 'one of -1000, 0, 1, 2, 3, 4, 5',
        (v) => (Number.isInteger(v) && IMPORTANCES.includes(v) ? v : undefined));
      c.string('group', false, LABEL);
      c.bool('group_blocked', false);
      if (id !== undefined && ids.has(id)) c.noteInvalid('id', 'a channel id listed twice in one snapshot');
      if (id !== undefined) ids.add(id);
      r.merge(c);
    });
  }

  function quoted(text) {
    return utf8(text) <= 64 && /^[\x20-\x21\x23-\x7e]*$/.test(text) ? ` "${text}"` : '';
  }

  function timeMessage(micros, windowMs, side) {
    const seconds = windowMs / 1000;
    const window = seconds >= 86400 && seconds % 86400 === 0
      ? (seconds === 86400 ? '1 day' : `${seconds / 86400} days`) : `${seconds} seconds`;
    return `the event time (skew-corrected) ${formatTime(micros)} is more than ${window} ${side}`
      + " the server's receive time";
  }

  /**
   * One event as the server judges it: `{eventId}` when valid, else `{code, message}`. `sentAt` and
   * `receivedAt` are microseconds (sentAt null: no clock correction).
   */
  function judgeEvent(value, platform, sentAt, receivedAt, limits = LIMITS) {
    const bytes = utf8(JSON.stringify(value === undefined ? null : value));
    if (bytes > limits.maxEventBytes) {
      return { code: 'too_large', message: `the event is ${bytes} bytes, at most ${limits.maxEventBytes} are allowed` };
    }
    if (!isObject(value)) {
      return { code: 'invalid_field', message: `invalid field "event": expected a JSON object, got ${kind(value)}` };
    }
    const type = own(value, 'type');
    if (typeof type === 'string' && !TYPES.includes(type)) {
      return { code: 'unknown_type', message: `unknown event type${quoted(type)}` };
    }
    const r = new FieldReader(value, '');
    const eventId = r.uuid('event_id', true);
    const name = r.read('type', true, 'an event type name', (v) => (typeof v === 'string' ? v : undefined));
    const at = r.time('at', true);
    if (name !== undefined) payload(name, platform, r);
    const failure = r.failure();
    if (failure) return failure;
    const occurredAt = sentAt === null ? at : receivedAt - (sentAt - at);
    if (occurredAt < receivedAt - limits.maxAgeMs * 1000 || occurredAt < MIN_MICROS) {
      return { code: 'too_old', message: timeMessage(occurredAt, limits.maxAgeMs, 'before') };
    }
    if (occurredAt > receivedAt + limits.maxFutureMs * 1000 || occurredAt > MAX_MICROS) {
      return { code: 'in_future', message: timeMessage(occurredAt, limits.maxFutureMs, 'after') };
    }
    return { eventId };
  }

  /** The event's `event_id` text as the server echoes it: strings only, cut at 128 UTF-8 bytes. */
  function eventIdText(value) {
    const id = isObject(value) ? own(value, 'event_id') : undefined;
    if (typeof id !== 'string') return null;
    let text = '';
    for (const ch of id.replace(/\u0000/g, '\uFFFD')) {
      if (utf8(text + ch) > 128) break;
      text += ch;
    }
    return text;
  }

  /**
   * The answer the server would give to a `POST /v1/telemetry` body for a key of `keyAppId` received at
   * `receivedAtMs`: `{status, body}`. JSON.parse cannot see a key repeated in one object (the server refuses
   * it) nor a number's spelling (4.0 is an integer to it): those two are not judged.
   */
  function validate(bodyText, keyAppId, receivedAtMs, limits = LIMITS) {
    let document;
    try {
      document = JSON.parse(bodyText);
    } catch (error) {
      return refusal(400, 'invalid_json', `the body is not JSON: ${error.message}`);
    }
    if (!isObject(document)) {
      return refusal(400, 'invalid_field', `the body must be a JSON object, got ${kind(document)}`);
    }
    const r = new FieldReader(document, '');
    const appId = r.string('app_id', true, APP_ID);
    r.uuid('installation_id', true);
    const platform = r.choice('platform', true, PLATFORMS);
    r.string('app_version', false, VERSION);
    r.string('os_version', false, VERSION);
    r.integer('sdk_int', false, 1, 1000);
    const sentAt = r.time('sent_at', false);
    if (platform === 'web') {
      r.choice('browser', true, BROWSERS);
      r.string('browser_version', true, VERSION);
    }
    const events = r.array('events', true);
    const failure = r.failure();
    if (failure) return refusal(400, failure.code, failure.message);
    if (appId !== keyAppId) return refusal(403, 'app_mismatch', "the batch's app_id is not the app of this key");
    if (events.length > limits.maxEventsPerRequest) {
      return refusal(413, 'too_many_events',
        `the request has ${events.length} events, at most ${limits.maxEventsPerRequest} are allowed`);
    }
    const receivedAt = receivedAtMs * 1000;
    const seen = new Set();
    const rejected = [];
    let accepted = 0, duplicates = 0;
    events.forEach((value, index) => {
      const outcome = judgeEvent(value, platform, sentAt ?? null, receivedAt, limits);
      if (outcome.eventId === undefined) {
        rejected.push({ index, event_id: eventIdText(value), error: outcome.code, message: outcome.message });
      } else if (seen.has(outcome.eventId)) {
        duplicates++;
      } else {
        seen.add(outcome.eventId);
        accepted++;
      }
    });
    return { status: 200, body: { accepted, duplicates, rejected } };
  }

  const refusal = (status, error, message) => ({ status, body: { error, message } });

  // ---- Retries ----

  /**
   * Milliseconds to wait after failed attempt `attempt` (1-based): the server's `Retry-After` when it is a
   * number of seconds (capped), else exponential backoff with equal jitter (`random` in [0, 1]).
   */
  function retryDelayMs(attempt, retryAfter, random, policy = RETRY_POLICY) {
    const seconds = typeof retryAfter === 'string' ? retryAfter.trim() : '';
    if (/^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(seconds)) {
      return Math.round(Math.min(Number(seconds), policy.max_retry_after_s) * 1000);
    }
    const base = policy.base_delay_s * 1000;
    const exponential = Math.min(policy.max_delay_s * 1000, base * 2 ** Math.min(Math.max(attempt - 1, 0), 20));
    return Math.round(exponential / 2 + (exponential / 2) * Math.min(Math.max(random, 0), 1));
  }

  // ---- Answers (docs/contract.md, Answers; Tests/Fixtures/upload-answers.json) ----

  /** The answer's body when it is PushLedger's own JSON error (a proxy's answer never drops events). */
  function ownError(contentType, bodyText) {
    if (typeof contentType !== 'string') return null;
    if (contentType.split(';')[0].trim().toLowerCase() !== 'application/json') return null;
    try {
      const answer = JSON.parse(bodyText);
      return isObject(answer) && typeof answer.error === 'string' && typeof answer.message === 'string' ? answer : null;
    } catch {
      return null;
    }
  }

  /**
   * What an answer means for a batch of `size` events: `outcome` is one of the fixture's outcomes (stored,
   * refused, split, retry, unauthorized, unexpected), with the counts and rejections of a 200.
   */
  function interpretAnswer(status, contentType, bodyText, retryAfter, size) {
    let answer = null;
    try {
      answer = JSON.parse(bodyText);
    } catch {
      // Not JSON (a proxy's HTML page …): the status alone decides.
    }
    if (!isObject(answer)) answer = null;
    const mine = ownError(contentType, bodyText);
    const code = answer && typeof answer.error === 'string' ? answer.error : `http_${status}`;
    const message = answer && typeof answer.message === 'string' ? answer.message : '';
    if (status === 200) {
      if (!answer || !Number.isInteger(answer.accepted) || !Number.isInteger(answer.duplicates)
        || !Array.isArray(answer.rejected)) {
        return { outcome: 'unexpected', status, code: 'unreadable_answer' };
      }
      const rejected = answer.rejected.filter(isObject).map((item) => ({ index: item.index, event_id: item.event_id,
        code: typeof item.error === 'string' ? item.error : 'unknown', message: String(item.message ?? '') }));
      return { outcome: 'stored', status, accepted: answer.accepted, duplicates: answer.duplicates, rejected };
    }
    if (status === 400 && mine && REFUSAL_CODES.includes(mine.error)) {
      return { outcome: 'refused', status, code, message };
    }
    // A single event is dropped on 413 only when PushLedger says so: a proxy's smaller limit must not lose it.
    if (status === 413) {
      return size <= 1 && !mine ? { outcome: 'unexpected', status, code } : { outcome: 'split', status, code, message };
    }
    if (status === 401 || status === 403) return { outcome: 'unauthorized', status, code };
    // Any other 400 is someone else's (a proxy, a firewall, a captive portal): retried like a 5xx.
    if (status === 400 || status === 429 || (status >= 500 && status <= 599)) {
      return { outcome: 'retry', status, code, retryAfter: retryAfter ?? null };
    }
    return { outcome: 'unexpected', status, code };
  }

  // ---- Batches and the flush loop ----

  /**
   * The request body: the envelope (batch context, ids, `sent_at`), then the queued event texts as they are.
   * `context` is the JSON text of the envelope fields recorded with each event (browser, versions).
   */
  function requestBody(envelope, context, sentAtMs, texts) {
    const head = JSON.stringify({ ...envelope, ...JSON.parse(context), ...(sentAtMs === null ? {} : {
      sent_at: new Date(sentAtMs).toISOString() }) });
    return `${head.slice(0, -1)},"events":[${texts.join(',')}]}`;
  }

  /**
   * Takes the next batch from `retry` (first) or `cursor`: consecutive records of one context, at most
   * `maxEvents` and `maxBytes` of body (a single record always fits: the server judges it).
   */
  function nextBatch(retry, cursor, maxEvents, budget) {
    const source = retry.length ? retry : cursor;
    let batch = null;
    while (source.length) {
      const record = source[0];
      if (!batch) batch = { context: record.context, records: [], bytes: 0, maxBytes: budget(record.context) };
      const cost = record.bytes + 1;
      if (batch.context !== record.context || batch.records.length >= maxEvents
        || (batch.bytes + cost > batch.maxBytes && batch.records.length)) break;
      batch.records.push(record);
      batch.bytes += cost;
      source.shift();
    }
    return batch;
  }

  /**
   * Uploads every queued record: `queue` has `all()` (records `{key, context, text, bytes, event_id}` in
   * record order) and `remove(keys)`; `post(body, keepalive)` answers `{status, contentType, text,
   * retryAfter}` or throws on a network error. Records leave the queue only once the server answered for
   * them, so an answer lost on the way means the same event ids are sent again (the server de-duplicates).
   * Resolves to `{accepted, duplicates, rejected, remaining, failure}`; never rejects for an answer.
   */
  async function flushQueue({ queue, post, envelope, sleep, random = Math.random, maxAttempts = 4,
    maxBatchEvents = 500, keepaliveBytes = 0, limits = LIMITS, now = Date.now }) {
    const result = { accepted: 0, duplicates: 0, rejected: [], remaining: 0, failure: null, sent: 0 };
    const records = await queue.all();
    const cursor = records.slice();
    const retry = [];
    let maxEvents = Math.min(maxBatchEvents, limits.maxEventsPerRequest);
    const bodyLimit = keepaliveBytes > 0 ? Math.min(keepaliveBytes, limits.maxBodyBytes) : limits.maxBodyBytes;
    const budget = (context) => bodyLimit - utf8(requestBody(envelope, context, 0, []));
    for (let batch; (batch = nextBatch(retry, cursor, maxEvents, budget));) {
      const answer = await deliver(batch, { post, envelope, sleep, random, maxAttempts, now,
        keepalive: keepaliveBytes > 0 });
      const keys = batch.records.map((r) => r.key);
      if (answer.outcome === 'stored') {
        await queue.remove(keys);
        result.sent += keys.length;
        result.accepted += answer.accepted;
        result.duplicates += answer.duplicates;
        result.rejected.push(...answer.rejected.map((item) => ({ ...item,
          event_id: item.event_id ?? batch.records[item.index]?.event_id ?? null })));
      } else if (answer.outcome === 'refused') {
        await queue.remove(keys);
        result.rejected.push(...batch.records.map((r) => ({ event_id: r.event_id, code: answer.code,
          message: answer.message })));
      } else if (answer.outcome === 'split' && batch.records.length > 1) {
        // The server's limits are lower than ours: halve the batches and send these again.
        maxEvents = Math.max(1, Math.floor(batch.records.length / 2));
        retry.unshift(...batch.records);
      } else if (answer.outcome === 'split') {
        await queue.remove(keys);
        result.rejected.push({ event_id: batch.records[0].event_id, code: answer.code, message: answer.message });
      } else {
        result.failure = { outcome: answer.outcome, status: answer.status, code: answer.code,
          retryAfter: answer.retryAfter ?? null };
        break;
      }
    }
    result.remaining = (await queue.all()).length;
    return result;
  }

  /** One batch with retries: the last answer, interpreted. A network error counts as retryable. */
  async function deliver(batch, { post, envelope, sleep, random, maxAttempts, now, keepalive }) {
    for (let attempt = 1; ; attempt++) {
      const body = requestBody(envelope, batch.context, now(), batch.records.map((r) => r.text));
      let answer;
      try {
        const response = await post(body, keepalive);
        answer = interpretAnswer(response.status, response.contentType, response.text, response.retryAfter,
          batch.records.length);
      } catch (error) {
        answer = { outcome: 'retry', status: 0, code: 'network_error', retryAfter: null };
      }
      if (answer.outcome !== 'retry' || attempt >= maxAttempts) return answer;
      await sleep(retryDelayMs(attempt, answer.retryAfter, random()));
    }
  }

  // ---- Browser identification (navigator.userAgentData where present, else the User-Agent string) ----

  const BRANDS = [['Microsoft Edge', 'edge'], ['Opera', 'opera'], ['Samsung Internet', 'samsung'],
    ['Google Chrome', 'chrome'], ['Chromium', 'chrome']];

  /**
   * `{browser, browser_version, os_version}` from `userAgent` and, when the browser has User-Agent Client
   * Hints, `hints` (`brands`, `fullVersionList`, `platform`, `platformVersion`). Chromium builds without
   * a vendor brand count as chrome (same engine, same push service).
   */
  function identifyBrowser(userAgent, hints) {
    const fromUa = parseUserAgent(userAgent || '');
    if (!hints || !Array.isArray(hints.brands) || !hints.brands.length) return fromUa;
    const full = Array.isArray(hints.fullVersionList) && hints.fullVersionList.length;
    const list = full ? hints.fullVersionList : hints.brands;
    for (const [brand, browser] of BRANDS) {
      const entry = list.find((b) => b.brand === brand);
      if (entry && entry.version) {
        const os = hints.platform ? `${hints.platform}${hints.platformVersion ? ` ${hints.platformVersion}` : ''}`
          : fromUa.os_version;
        return { browser, browser_version: entry.version.slice(0, VERSION),
          ...(os ? { os_version: os.slice(0, VERSION) } : {}) };
      }
    }
    return fromUa;
  }

  function parseUserAgent(ua) {
    const rules = [[/EdgA?\/([\d.]+)|EdgiOS\/([\d.]+)/, 'edge'], [/OPR\/([\d.]+)|OPT\/([\d.]+)/, 'opera'],
      [/SamsungBrowser\/([\d.]+)/, 'samsung'], [/Firefox\/([\d.]+)|FxiOS\/([\d.]+)/, 'firefox'],
      [/(?:Headless)?Chrome\/([\d.]+)|CriOS\/([\d.]+)/, 'chrome'], [/Version\/([\d.]+).*Safari\//, 'safari']];
    let found = { browser: 'other', browser_version: 'unknown' };
    for (const [pattern, browser] of rules) {
      const m = pattern.exec(ua);
      if (m) {
        found = { browser, browser_version: m[1] || m[2] };
        break;
      }
    }
    const os = [[/Windows NT ([\d.]+)/, (v) => `Windows ${v}`],
      [/(?:iPhone|CPU) OS ([\d_]+)/, (v) => `iOS ${v.replace(/_/g, '.')}`],
      [/Mac OS X ([\d_.]+)/, (v) => `macOS ${v.replace(/_/g, '.')}`], [/Android ([\d.]+)/, (v) => `Android ${v}`],
      [/CrOS/, () => 'ChromeOS'], [/Linux/, () => 'Linux']];
    for (const [pattern, name] of os) {
      const m = pattern.exec(ua);
      if (m) return { ...found, os_version: name(m[1] || '') };
    }
    return found;
  }

  const api = { SDK_VERSION, LIMITS, KEEPALIVE_BYTES, RETRY_POLICY, REFUSAL_CODES, TYPES, utf8, isUuid, isEndpoint,
    endpointHost,
    parseTime, formatTime, judgeEvent, validate, retryDelayMs, ownError, interpretAnswer, requestBody, nextBatch,
    flushQueue, identifyBrowser, parseUserAgent };
  root.PushLedgerCore = Object.freeze(api);
  if (typeof module === 'object' && module && module.exports) module.exports = api;
})(typeof globalThis !== 'undefined' ? globalThis : self);
