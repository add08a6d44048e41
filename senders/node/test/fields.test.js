// Every row of the shared rule table (Tests/Fixtures/sender-fields.json) through the public API, and the
// clients' shared upload rules (upload-answers.json, retry-delays.json).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Reporter, ReportError } from '../src/index.js';
import { BASE_DELAY_S, MAX_DELAY_S, MAX_RETRY_AFTER_S, REFUSAL_CODES, classify, retryDelay } from '../src/upload.js';
import { apnsSend, fcmSend, webpushSend } from '../src/fields.js';
import { fixture, expand } from './helpers.js';

const TABLE = fixture('sender-fields.json');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ctx = { appId: TABLE.app_id, defaultChannel: 'default' };

/** The send a row makes, or the ReportError thrown, by the functions the reporter calls. */
function derive(row) {
  const { report, answer, request } = row;
  const options = { notificationId: report.notification_id, channel: expand(report, 'channel'),
    campaign: report.campaign, sentAt: new Date(report.sent_at), apnsId: answer.headers['apns-id'] };
  const body = expand(answer, 'body');
  try {
    if (row.provider === 'webpush') {
      return webpushSend(ctx, expand(request, 'endpoint'), request.headers, answer.status, body, options);
    }
    return row.provider === 'apns'
      ? apnsSend(ctx, request.token, request.payload, request.headers, answer.status, body, options)
      : fcmSend(ctx, request.message, answer.status, body, options);
  } catch (error) {
    if (error instanceof ReportError) return error;
    throw error;
  }
}

for (const row of [...TABLE.rows, ...TABLE.webpush_rows]) {
  test(`rule table: ${row.name}`, () => {
    const result = derive(row);
    if (row.error) {
      assert.ok(result instanceof ReportError, JSON.stringify(result));
      assert.deepEqual([result.code, result.field], [row.error.code, row.error.field]);
      return;
    }
    assert.ok(!(result instanceof ReportError), result.message);
    const { event_id: eventId, ...rest } = result;
    assert.match(eventId, UUID);
    assert.deepEqual(rest, row.send);
  });
}

test('a refused report is a value, counted, and queues nothing', async () => {
  const reporter = new Reporter('http://127.0.0.1:9', 'key', TABLE.app_id, { logger: null });
  const options = { notificationId: TABLE.rows[0].send.notification_id };
  const error = reporter.fcm({ topic: 'news', notification: {} }, 200, null, options);
  assert.ok(error instanceof ReportError);
  assert.equal(error.field, 'token');
  assert.deepEqual([reporter.stats().invalid, reporter.stats().queued], [1, 0]);
  await reporter.close(10);
});

const ANSWERS = fixture('upload-answers.json');
const DELAYS = fixture('retry-delays.json');

test('the retry policy and refusal codes are the shared ones', () => {
  assert.deepEqual([BASE_DELAY_S, MAX_DELAY_S, MAX_RETRY_AFTER_S],
    [DELAYS.policy.base_delay_s, DELAYS.policy.max_delay_s, DELAYS.policy.max_retry_after_s]);
  assert.deepEqual([...REFUSAL_CODES].sort(), [...ANSWERS.refusal_codes].sort());
});

for (const row of ANSWERS.rows) {
  test(`upload answer ${row.status} ${row.content_type} → ${row.outcome}`, () => {
    assert.equal(classify(row.status, row.content_type, row.body), row.outcome);
  });
}

test('no answer is retried', () => assert.equal(classify(null, null, ''), 'retry'));

for (const row of DELAYS.rows) {
  test(`retry delay after attempt ${row.attempt}, Retry-After ${row.retry_after}, random ${row.random}`, () => {
    assert.ok(Math.abs(retryDelay(row.attempt, row.retry_after, row.random) - row.delay_s) < 1e-9);
  });
}

test("headers may be a plain object, a Map or fetch's Headers", () => {
  const row = TABLE.rows[0];
  const sends = [row.request.headers, new Map(Object.entries(row.request.headers)), new Headers(row.request.headers)]
    .map((headers) => apnsSend(ctx, row.request.token, row.request.payload, headers, 200, '',
      { notificationId: row.send.notification_id, sentAt: new Date(row.report.sent_at) }));
  for (const send of sends) {
    assert.deepEqual([send.push_type, send.priority, send.collapse_id, send.expires_at],
      [row.send.push_type, row.send.priority, row.send.collapse_id, row.send.expires_at]);
  }
});

test('a refused Web Push endpoint is a value whose message never holds the endpoint', async () => {
  const reporter = new Reporter('http://127.0.0.1:9', 'key', TABLE.app_id, { logger: null });
  const endpoint = 'http://push.example.net/push/v1/secret-subscription-id';
  const options = { notificationId: TABLE.rows[0].send.notification_id };
  const error = reporter.webpush(endpoint, { TTL: 60 }, 201, '', options);
  assert.ok(error instanceof ReportError);
  assert.deepEqual([error.code, error.field], ['invalid_field', 'token']);
  assert.ok(!error.message.includes('secret-subscription-id') && !error.message.includes('push.example.net'));
  await reporter.close(10);
});

test("Web Push headers may be a plain object, a Map or fetch's Headers", () => {
  const row = TABLE.webpush_rows[0];
  const options = { notificationId: row.send.notification_id, sentAt: new Date(row.report.sent_at) };
  const sends = [row.request.headers, new Map(Object.entries(row.request.headers)), new Headers(row.request.headers)]
    .map((headers) => webpushSend(ctx, row.request.endpoint, headers, 201, '', options));
  for (const send of sends) {
    const { ttl_seconds: ttl, topic, urgency } = row.send;
    assert.deepEqual([send.ttl_seconds, send.topic, send.urgency], [ttl, topic, urgency]);
  }
});
