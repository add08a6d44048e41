// The rule table: what one reported attempt becomes on POST /v1/sends.
// Tests/Fixtures/sender-fields.json holds the rows the Python, Node and Go libraries all run, and the
// server's own validator runs every expected send of it.
import { randomUUID } from 'node:crypto';

// The contract's time range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, in ms since 1970.
const MIN_MS = -62135596800000;
const MAX_MS = 253402300799999;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DIGITS = /^[0-9]+$/;
// A google.protobuf.Duration in JSON: seconds with up to nine fraction digits and an "s".
const DURATION = /^([0-9]+)(?:\.([0-9]{1,9}))?s$/;
const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const LABEL = 255;
const IDENTIFIER = 255;
const SHORT_WORD = 64;

/** Largest `response_body` the contract stores, in UTF-8 bytes; a longer body is left out. */
export const MAX_RESPONSE_BODY_BYTES = 4096;

/**
 * A report that cannot become a send, returned (never thrown) by `apns()` and `fcm()`.
 * `code` is `missing_field`, `invalid_field` or `closed`; `field` names the argument; `message`
 * is safe to log (it never holds a token or a key).
 */
export class ReportError extends Error {
  /** @param {string} code @param {string|null} field @param {string} message */
  constructor(code, field, message) {
    super(message);
    this.name = 'ReportError';
    this.code = code;
    this.field = field;
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
const obj = (v) => (isObject(v) ? v : {});
const bytes = (s) => Buffer.byteLength(s, 'utf8');

/** The value when the contract can store it as a string of at most `max` bytes; else null. */
function storable(value, max) {
  if (typeof value !== 'string' || value.includes('\u0000')) return null;
  const size = bytes(value);
  return size > 0 && size <= max ? value : null;
}

/** A JSON number equal to 1 (APNs' `mutable-content` and `content-available` flags). */
const isOne = (v) => typeof v === 'number' && v === 1;

/** RFC 3339 in UTC with milliseconds, the form every library writes. */
export const formatTime = (ms) => new Date(ms).toISOString();

function timeMs(when) {
  if (when === undefined || when === null) return Date.now();
  if (!(when instanceof Date) || Number.isNaN(when.getTime())) {
    throw new ReportError('invalid_field', 'sent_at', 'sentAt must be a valid Date');
  }
  return when.getTime();
}

/** Header names in lower case (HTTP/2 sends them so); integers as their decimal text. */
function lowerHeaders(headers, field) {
  if (headers === undefined || headers === null) return {};
  // A Map or fetch's Headers iterate their entries; a plain object (node:http2's headers) has them as keys.
  const iterable = headers instanceof Map || (typeof Headers !== 'undefined' && headers instanceof Headers);
  const entries = iterable ? [...headers.entries()] : isObject(headers) ? Object.entries(headers) : null;
  if (entries === null) throw new ReportError('invalid_field', field, `${field} must be an object of header values`);
  const out = {};
  for (const [name, value] of entries) {
    const text = Number.isInteger(value) ? String(value) : value;
    if (typeof name === 'string' && typeof text === 'string') out[name.toLowerCase()] = text;
  }
  return out;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function jsonObject(value, field) {
  let parsed = value;
  if (ArrayBuffer.isView(parsed)) parsed = Buffer.from(parsed.buffer, parsed.byteOffset, parsed.byteLength).toString();
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      throw new ReportError('invalid_field', field, `${field} is not JSON`);
    }
  }
  if (!isObject(parsed)) throw new ReportError('invalid_field', field, `${field} must be a JSON object`);
  return parsed;
}

/** The answer body as text: verbatim when given as a string or UTF-8 bytes; parsed JSON is written back. */
function bodyText(body) {
  if (body === undefined || body === null) return null;
  if (ArrayBuffer.isView(body)) {
    try {
      return decoder.decode(body);
    } catch {
      return null;
    }
  }
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** [reason, unregistered_at ms] read out of the answer as the server's ProviderResponse reads them. */
function deriveReason(provider, status, text) {
  if (text === null) return [null, null];
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    return [null, null];
  }
  if (!isObject(answer)) return [null, null];
  if (provider === 'apns') {
    if (status >= 200 && status <= 299) return [null, null];
    const stamp = answer.timestamp;
    const unregistered = status === 410 && Number.isInteger(stamp) && stamp >= MIN_MS && stamp <= MAX_MS ? stamp : null;
    return [storable(answer.reason, IDENTIFIER), unregistered];
  }
  if (!isObject(answer.error)) return [null, null];
  const details = Array.isArray(answer.error.details) ? answer.error.details : [];
  const detail = details.find((d) => isObject(d) && d['@type'] === FCM_ERROR_TYPE);
  const code = detail ? storable(detail.errorCode, IDENTIFIER) : null;
  return [code ?? storable(answer.error.status, IDENTIFIER), null];
}

/** 1 to 64 printable ASCII characters, else nothing (the provider refuses such a request). */
const collapseId = (v) => (typeof v === 'string' && /^[\x20-\x7e]{1,64}$/.test(v) ? v : null);

/** `apns-expiration` in UNIX seconds as ms; 0, or a time already past, is "try once", written as sent_at. */
function apnsExpiry(value, sentMs) {
  if (typeof value !== 'string' || !DIGITS.test(value)) return null;
  const ms = Number(value) * 1000;
  return ms <= MAX_MS ? Math.max(ms, sentMs) : null;
}

/** sent_at plus an FCM `ttl` duration such as "3600s" or "1.5s". */
function ttlExpiry(value, sentMs) {
  const match = typeof value === 'string' ? DURATION.exec(value) : null;
  if (!match) return null;
  const ms = sentMs + Number(match[1]) * 1000 + Number((match[2] ?? '0').padEnd(3, '0').slice(0, 3));
  return ms <= MAX_MS ? ms : null;
}

const priority = (v) => (typeof v === 'string' && DIGITS.test(v) && Number(v) <= 10 ? Number(v) : null);

/** The `apns-push-type` header; without one, content-available alone is background, an alert, badge or sound alert. */
function apnsPushType(header, aps) {
  const stated = storable(header, SHORT_WORD);
  if (stated !== null) return stated;
  if (['alert', 'badge', 'sound'].some((k) => aps[k] !== undefined && aps[k] !== null)) return 'alert';
  return isOne(aps['content-available']) ? 'background' : null;
}

function uuid(value, field) {
  if (typeof value !== 'string' || !UUID.test(value)) {
    throw new ReportError('invalid_field', field, `${field} must be a UUID (8-4-4-4-12 hex)`);
  }
  return value;
}

function label(value, field, max) {
  const text = storable(value, max);
  if (text === null) {
    throw new ReportError('invalid_field', field, `${field} must be a string of 1 to ${max} bytes without U+0000`);
  }
  return text;
}

const given = (v) => v !== undefined && v !== null;

function put(send, key, value) {
  if (value !== null && value !== undefined) send[key] = value;
}

/** The fields every send has, from the caller's options, the payload's PushLedger keys and the answer. */
function common(ctx, provider, token, status, body, opts, payloadNid, payloadChannel, derive = deriveReason) {
  if (!Number.isInteger(status) || !(status === 0 || (status >= 100 && status <= 599))) {
    throw new ReportError('invalid_field', 'status', "status must be the provider's HTTP status (100 to 599) or 0");
  }
  const nid = given(opts.notificationId) ? opts.notificationId : payloadNid;
  if (!given(nid)) {
    throw new ReportError('missing_field', 'notification_id',
      "notificationId is required (as an option or the payload's notification_id)");
  }
  const channel = given(opts.channel) ? label(opts.channel, 'channel', LABEL)
    : storable(payloadChannel, LABEL) ?? ctx.defaultChannel;
  const send = {
    event_id: randomUUID(), notification_id: uuid(nid, 'notification_id'), app_id: ctx.appId, provider, token, channel,
  };
  if (given(opts.campaign)) send.campaign = label(opts.campaign, 'campaign', LABEL);
  if (given(opts.installationId)) send.installation_id = uuid(opts.installationId, 'installation_id');
  if (given(opts.environment)) send.environment = label(opts.environment, 'environment', SHORT_WORD);
  if (given(opts.latencyMs)) {
    if (!Number.isInteger(opts.latencyMs) || opts.latencyMs < 0 || opts.latencyMs > 86_400_000) {
      throw new ReportError('invalid_field', 'latency_ms', 'latencyMs must be an integer from 0 to 86400000');
    }
    send.latency_ms = opts.latencyMs;
  }
  const sentMs = timeMs(opts.sentAt);
  send.sent_at = formatTime(sentMs);
  send.status = status;
  const text = bodyText(body);
  const [reason, unregistered] = derive(provider, status, text);
  put(send, 'reason', reason);
  if (unregistered !== null) send.unregistered_at = formatTime(unregistered);
  if (text !== null && !text.includes('\u0000') && bytes(text) <= MAX_RESPONSE_BODY_BYTES) send.response_body = text;
  return [send, sentMs];
}

/**
 * The send of one APNs attempt.
 * @param {{appId: string, defaultChannel: string}} ctx
 */
export function apnsSend(ctx, token, payload, headers, status, body, opts = {}) {
  if (typeof token !== 'string' || token === '') {
    const code = given(token) && token !== '' ? 'invalid_field' : 'missing_field';
    throw new ReportError(code, 'token', 'token must be the device token');
  }
  const p = jsonObject(payload, 'payload');
  const request = lowerHeaders(headers, 'headers');
  const aps = obj(p.aps);
  const [send, sentMs] = common(ctx, 'apns', token, status, body, opts, p.notification_id, p.channel);
  put(send, 'apns_id', storable(opts.apnsId, IDENTIFIER) ?? storable(request['apns-id'], IDENTIFIER));
  put(send, 'priority', priority(request['apns-priority']));
  put(send, 'push_type', apnsPushType(request['apns-push-type'], aps));
  send.mutable_content = isOne(aps['mutable-content']);
  put(send, 'collapse_id', collapseId(request['apns-collapse-id']));
  const expiry = apnsExpiry(request['apns-expiration'], sentMs);
  if (expiry !== null) send.expires_at = formatTime(expiry);
  return send;
}

/**
 * The send of one FCM HTTP v1 attempt: the `message` object (or the whole request body `{message}`).
 * @param {{appId: string, defaultChannel: string}} ctx
 */
export function fcmSend(ctx, message, status, body, opts = {}) {
  let m = jsonObject(message, 'message');
  const keys = Object.keys(m);
  if (keys.length === 1 && keys[0] === 'message' && isObject(m.message)) m = m.message;
  // A Firebase installation ID (`fid`) stands for the device where a registration token would.
  const token = m.token || m.fid;
  if (typeof token !== 'string' || token === '') {
    throw new ReportError('missing_field', 'token',
      'the message has no device token: report topic and condition sends per device');
  }
  const data = obj(m.data);
  const android = obj(m.android);
  const apnsHeaders = lowerHeaders(obj(obj(m.apns).headers), 'message.apns.headers');
  const androidNotification = android.notification;
  const [send, sentMs] = common(ctx, 'fcm', token, status, body, opts, data.notification_id,
    obj(androidNotification).channel_id || data.channel);
  const androidPriority = typeof android.priority === 'string' ? android.priority.toUpperCase() : null;
  put(send, 'priority', { HIGH: 10, NORMAL: 5 }[androidPriority] ?? priority(apnsHeaders['apns-priority']));
  const hasNotification = isObject(m.notification) || isObject(androidNotification);
  const hasData = Object.keys(data).length > 0;
  put(send, 'message_kind', hasNotification ? (hasData ? 'hybrid' : 'notification') : hasData ? 'data' : null);
  put(send, 'collapse_id', collapseId(android.collapse_key) ?? collapseId(apnsHeaders['apns-collapse-id']));
  const expiry = ttlExpiry(android.ttl, sentMs) ?? apnsExpiry(apnsHeaders['apns-expiration'], sentMs);
  if (expiry !== null) send.expires_at = formatTime(expiry);
  return send;
}

/** Longest subscription endpoint the contract stores, in bytes. */
const MAX_ENDPOINT_BYTES = 2048;
/** Longest `TTL` the contract stores: 28 days, the most push services keep a message. */
const MAX_TTL_SECONDS = 2_419_200;
// The endpoint, as the server reads it: https (in any case), a host after any user info (a name, an IPv4 or
// an [IPv6] address; a port may follow), then anything; printable ASCII without spaces throughout.
const ENDPOINT = /^[Hh][Tt][Tt][Pp][Ss]:\/\/(?:[^/?#]*@)?(?:\[[^/?#]*\]|[^/?#@:[][^/?#@:]*)(?:[:/?#].*)?$/;
const PRINTABLE = /^[\x21-\x7e]+$/;
// RFC 8030 §5.4: a topic is at most 32 characters of the URL- and filename-safe base64 alphabet.
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);

/** The subscription endpoint; the error never repeats it (the subscription's address is the sender's secret). */
function endpointOf(value) {
  if (value === undefined || value === null || value === '') {
    throw new ReportError('missing_field', 'token', "endpoint is required (the subscription's endpoint URL)");
  }
  if (typeof value !== 'string' || value.length > MAX_ENDPOINT_BYTES || !PRINTABLE.test(value)
    || !ENDPOINT.test(value)) {
    throw new ReportError('invalid_field', 'token', "endpoint must be the subscription's https:// URL with a host, "
      + `at most ${MAX_ENDPOINT_BYTES} bytes of printable ASCII`);
  }
  return value;
}

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
function cut(text, max) {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= max) return text;
  let end = max;
  while (end > 0 && (encoded[end] & 0xc0) === 0x80) end -= 1; // a continuation byte: back to the character's start
  return encoded.subarray(0, end).toString('utf8');
}

/**
 * The push service's error text: outside 2xx, a JSON body's `reason` (Apple), else its `error` (Mozilla's
 * autopush), as the server reads `response_body`; a text body's first non-blank line, trimmed (FCM); nothing
 * from an HTML page. Cut to 255 bytes.
 */
function webpushReason(status, text) {
  if (status === 0 || (status >= 200 && status <= 299) || !text || text.includes('\u0000')) return null;
  let line;
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    if (text.trimStart().startsWith('<')) return null;
    line = text.split(/\r\n|\r|\n/).map((l) => l.trim()).find((l) => l !== '');
  }
  if (answer !== undefined) {
    if (!isObject(answer)) return null;
    line = ['reason', 'error'].map((k) => answer[k]).find((v) => typeof v === 'string' && v.trim() !== '');
    line = line?.trim();
  }
  return line ? cut(line, IDENTIFIER) : null;
}

/** The `TTL` header in seconds; beyond the contract's 28 days, or malformed, left out. */
const ttlSeconds = (v) => (typeof v === 'string' && DIGITS.test(v) && Number(v) <= MAX_TTL_SECONDS ? Number(v) : null);

/**
 * The send of one Web Push request: the subscription endpoint, the request's TTL, Topic and Urgency headers,
 * the push service's status and body. The payload is encrypted for the browser, so the notification id and
 * channel come from the caller.
 * @param {{appId: string, defaultChannel: string}} ctx
 */
export function webpushSend(ctx, endpoint, headers, status, body, opts = {}) {
  const token = endpointOf(endpoint);
  const request = lowerHeaders(headers, 'headers');
  const own = { ...opts, environment: undefined }; // an APNs option, not a Web Push field
  const [send] = common(ctx, 'webpush', token, status, body, own, null, null,
    (_provider, answered, text) => [webpushReason(answered, text), null]);
  put(send, 'ttl_seconds', ttlSeconds(request.ttl));
  put(send, 'topic', typeof request.topic === 'string' && TOPIC.test(request.topic) ? request.topic : null);
  put(send, 'urgency', URGENCIES.has(request.urgency) ? request.urgency : null);
  return send;
}
