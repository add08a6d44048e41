// The core's upload rules under Node: the shared retry table, the shared answer table, batching, 413 splitting
// and what stays queued, with an in-memory queue and a scripted server.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import core from '../pushledger-core.js';
import { fixture } from './helpers.mjs';

test('the embedded retry policy is Tests/Fixtures/retry-delays.json', () => {
  assert.deepEqual({ ...core.RETRY_POLICY }, fixture('retry-delays.json').policy);
});

test('every row of the shared retry table', () => {
  for (const row of fixture('retry-delays.json').rows) {
    assert.equal(core.retryDelayMs(row.attempt, row.retry_after, row.random), Math.round(row.delay_s * 1000),
      JSON.stringify(row));
  }
});

test('every row of the shared answer table, for a batch of two events', () => {
  const table = fixture('upload-answers.json');
  assert.deepEqual([...core.REFUSAL_CODES], table.refusal_codes);
  for (const row of table.rows) {
    const answer = core.interpretAnswer(row.status, row.content_type, row.body, row.retry_after ?? null, 2);
    assert.equal(answer.outcome, row.outcome, JSON.stringify(row));
    if (row.retry_after) assert.equal(answer.retryAfter, row.retry_after);
  }
});

test("a single event's 413 drops it only when the 413 is PushLedger's", () => {
  const own = core.interpretAnswer(413, 'application/json', '{"error":"body_too_large","message":"x"}', null, 1);
  const proxy = core.interpretAnswer(413, 'text/html', '<html>413</html>', null, 1);
  assert.equal(own.outcome, 'split');
  assert.equal(proxy.outcome, 'unexpected');
});

/** A queue in memory with the IndexedDB queue's interface. */
function memoryQueue(count, context = '{"browser":"chrome","browser_version":"131.0"}', pad = 0) {
  const rows = [];
  for (let i = 0; i < count; i++) {
    const event = { event_id: randomUUID(), type: 'experiment_exposure', at: new Date().toISOString(),
      experiment: 'push_prompt_timing', variant: 'first_screen', ...(pad ? { note: 'x'.repeat(pad) } : {}) };
    const text = JSON.stringify(event);
    rows.push({ key: i + 1, context, text, bytes: core.utf8(text), event_id: event.event_id });
  }
  return {
    rows,
    all: async () => rows.slice(),
    remove: async (keys) => {
      for (const key of keys) rows.splice(rows.findIndex((r) => r.key === key), 1);
    },
  };
}

const envelope = { app_id: 'com.example.shop', installation_id: randomUUID(), platform: 'web' };
const json = (status, body, headers = {}) => ({ status, contentType: 'application/json', text: JSON.stringify(body),
  retryAfter: headers['Retry-After'] ?? null });

/** A server that judges each body with the validator, refusing more than `maxEvents` events with 413. */
function judgingServer(maxEvents, seen = new Set()) {
  const requests = [];
  const post = async (body) => {
    const parsed = JSON.parse(body);
    requests.push(parsed.events.length);
    if (parsed.events.length > maxEvents) return json(413, { error: 'too_many_events', message: 'too many' });
    const verdict = core.validate(body, 'com.example.shop', Date.now());
    let duplicates = 0;
    for (const e of parsed.events) {
      if (seen.has(e.event_id)) duplicates++;
      seen.add(e.event_id);
    }
    return json(verdict.status, { ...verdict.body, accepted: verdict.body.accepted - duplicates, duplicates });
  };
  return { post, requests, seen };
}

const noSleep = async () => {};

test('batches respect the event cap; a 413 halves them until they pass; nothing is lost', async () => {
  const queue = memoryQueue(10);
  const server = judgingServer(3);
  const result = await core.flushQueue({ queue, post: server.post, envelope, sleep: noSleep, maxBatchEvents: 8 });
  assert.equal(result.accepted, 10);
  assert.equal(result.remaining, 0);
  assert.equal(result.failure, null);
  assert.deepEqual(server.requests, [8, 4, 2, 2, 2, 2, 2]);
  assert.equal(server.seen.size, 10);
});

test('batches stay under the body limit', async () => {
  const queue = memoryQueue(40, undefined, 30000);
  const sizes = [];
  const post = async (body) => {
    sizes.push(core.utf8(body));
    const events = JSON.parse(body).events.length;
    return json(200, { accepted: events, duplicates: 0, rejected: [] });
  };
  const result = await core.flushQueue({ queue, post, envelope, sleep: noSleep });
  assert.equal(result.accepted, 40);
  assert.ok(sizes.length >= 2 && sizes.every((n) => n <= core.LIMITS.maxBodyBytes), String(sizes));
});

test('a lost answer keeps the events; sent again, the server counts them as duplicates', async () => {
  const queue = memoryQueue(3);
  const server = judgingServer(2000);
  let lose = true;
  const post = async (body) => {
    const answer = await server.post(body);
    if (lose) throw new TypeError('Failed to fetch'); // the server stored them; the answer never came
    return answer;
  };
  const first = await core.flushQueue({ queue, post, envelope, sleep: noSleep, maxAttempts: 1 });
  assert.equal(first.remaining, 3);
  assert.equal(first.failure.outcome, 'retry');
  lose = false;
  const second = await core.flushQueue({ queue, post, envelope, sleep: noSleep });
  assert.deepEqual([second.accepted, second.duplicates, second.remaining], [0, 3, 0]);
});

test('retries wait as the table says, Retry-After first, then keep the events', async () => {
  const queue = memoryQueue(2);
  const waits = [];
  const post = async () => json(503, { error: 'unavailable', message: 'down' }, { 'Retry-After': '5' });
  const result = await core.flushQueue({ queue, post, envelope, sleep: async (ms) => waits.push(ms), maxAttempts: 3 });
  assert.deepEqual(waits, [5000, 5000]);
  assert.equal(result.remaining, 2);
  assert.deepEqual([result.failure.outcome, result.failure.status, result.failure.retryAfter], ['retry', 503, '5']);
});

test("PushLedger's 400 drops the request's events with its reason; a proxy's 400 keeps them", async () => {
  const refused = memoryQueue(2);
  const own = async () => json(400, { error: 'invalid_field', message: 'invalid field "platform"' });
  const a = await core.flushQueue({ queue: refused, post: own, envelope, sleep: noSleep });
  assert.deepEqual([a.remaining, a.rejected.length, a.rejected[0].code], [0, 2, 'invalid_field']);
  const kept = memoryQueue(2);
  const proxy = async () => ({ status: 400, contentType: 'text/html', text: '<html>blocked</html>', retryAfter: null });
  const b = await core.flushQueue({ queue: kept, post: proxy, envelope, sleep: noSleep, maxAttempts: 2 });
  assert.deepEqual([b.remaining, b.failure.outcome], [2, 'retry']);
});

test('401 and 403 keep the events and stop the flush', async () => {
  const queue = memoryQueue(2);
  const post = async () => json(401, { error: 'unauthorized', message: 'unknown or revoked API key' });
  const result = await core.flushQueue({ queue, post, envelope, sleep: noSleep });
  assert.deepEqual([result.remaining, result.failure.outcome], [2, 'unauthorized']);
});

test('events of another context (an update changed the browser version) go in their own batch', async () => {
  const queue = memoryQueue(2);
  queue.rows[1].context = '{"browser":"chrome","browser_version":"132.0"}';
  const bodies = [];
  const post = async (body) => {
    bodies.push(JSON.parse(body));
    return json(200, { accepted: 1, duplicates: 0, rejected: [] });
  };
  await core.flushQueue({ queue, post, envelope, sleep: noSleep });
  assert.deepEqual(bodies.map((b) => [b.browser_version, b.events.length, b.platform]), [['131.0', 1, 'web'],
    ['132.0', 1, 'web']]);
});

test('browsers are told apart by client hints, else by the User-Agent string', () => {
  const chrome = core.identifyBrowser('Mozilla/5.0', { brands: [{ brand: 'Not A Brand', version: '99' },
    { brand: 'Google Chrome', version: '131' }],
  fullVersionList: [{ brand: 'Google Chrome', version: '131.0.6778.86' }],
  platform: 'Windows', platformVersion: '15.0.0' });
  assert.deepEqual(chrome, { browser: 'chrome', browser_version: '131.0.6778.86', os_version: 'Windows 15.0.0' });
  const edge = core.identifyBrowser('', { brands: [{ brand: 'Chromium', version: '131' },
    { brand: 'Microsoft Edge', version: '131' }], platform: 'macOS' });
  assert.deepEqual(edge, { browser: 'edge', browser_version: '131', os_version: 'macOS' });
  const cases = [
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'firefox', '133.0',
      'Windows 10.0'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 '
      + 'Mobile/15E148 Safari/604.1', 'safari', '17.4', 'iOS 17.4'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 '
      + 'Safari/605.1.15', 'safari', '17.5', 'macOS 10.15.7'],
    ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 '
      + 'Chrome/121.0.0.0 Mobile Safari/537.36', 'samsung', '25.0', 'Android 14'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 '
      + 'Safari/537.36 OPR/116.0.0.0', 'opera', '116.0.0.0', 'Windows 10.0'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 '
      + 'Safari/537.36 Edg/131.0.2903.86', 'edge', '131.0.2903.86', 'Windows 10.0'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.86 '
      + 'Safari/537.36', 'chrome', '131.0.6778.86', 'Linux'],
    ['curl/8.0', 'other', 'unknown', undefined],
  ];
  for (const [ua, browser, version, os] of cases) {
    assert.deepEqual(core.identifyBrowser(ua, undefined), { browser, browser_version: version,
      ...(os ? { os_version: os } : {}) }, ua);
  }
});

test('endpoints of each push service pass; keys, http and hostless URLs do not', () => {
  for (const endpoint of ['https://fcm.googleapis.com/fcm/send/dGVzdA:APA91bH',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABn', 'https://web.push.apple.com/QGuQyavXutnMH',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB', 'https://user@[::1]:8443/push']) {
    assert.ok(core.isEndpoint(endpoint), endpoint);
  }
  for (const bad of ['http://fcm.googleapis.com/fcm/send/x', 'https://', 'https:///path', 'BOr4…p256dh',
    'https://host/with space', `https://h/${'x'.repeat(2048)}`]) {
    assert.ok(!core.isEndpoint(bad), bad);
  }
});
