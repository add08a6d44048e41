// PushLedger browser SDK: the contract (docs/contract.md) as the server judges it. The limits, the values, and
// the answer the server would give to a telemetry body, with the same codes and messages: the SDK checks each
// event before queueing it, and the Node suite runs every telemetry vector through it. No DOM, no IndexedDB.
// A classic script on purpose (see pushledger-core.js); it defines `globalThis.PushLedgerContract`.
(function (root) {
  'use strict';

  /** The server's default limits (docs/contract.md, Limits). */
  const LIMITS = Object.freeze({
    maxBodyBytes: 1048576,
    maxEventsPerRequest: 2000,
    maxEventBytes: 32768,
    maxAgeMs: 30 * 86400000,
    maxFutureMs: 86400000,
  });

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

  root.PushLedgerContract = Object.freeze({ LIMITS, TYPES, VERSION, utf8, isObject, isUuid, isEndpoint, endpointHost,
    parseTime, formatTime, judgeEvent, validate });
  if (typeof module === 'object' && module && module.exports) module.exports = root.PushLedgerContract;
})(typeof globalThis !== 'undefined' ? globalThis : self);
