// The reporter against a real `pushledger serve` on the suite's own database.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { Reporter } from '../src/index.js';
import {
  BASE_SENT_S, Server, createKey, fixture, reportRow, sendColumns, shifted, storedSends, uniqueApp,
} from './helpers.js';

const TABLE = fixture('sender-fields.json');
const TIMES = new Set(['sent_at', 'expires_at', 'unregistered_at']);
const servers = [];
after(() => Promise.all(servers.map((s) => s.stop('SIGKILL'))));

async function serve(...args) {
  const server = new Server(...args);
  servers.push(server);
  return server.start();
}

const quiet = { logger: null };
const alert = (reporter, nid) => reporter.apns('ab'.repeat(32), { aps: { alert: 'Hi', 'mutable-content': 1 } },
  { 'apns-push-type': 'alert' }, 200, '', { notificationId: nid, channel: 'orders' });
const ids = (n) => Array.from({ length: n }, () => randomUUID());
const storedIds = (app) => storedSends(app).map((s) => s.notification_id).sort();

// Reports the rows that have a send, moved to now, for a new app through a real server; the moved rows and
// the stored sends by notification id, each stored once.
async function reportAndStore(appPrefix, rows) {
  const app = uniqueApp(appPrefix);
  const key = createKey(app);
  const server = await serve();
  const now = Math.floor(Date.now() / 1000);
  const moved = rows.filter((r) => r.send).map((r) => shifted(r, now - BASE_SENT_S));
  const reporter = new Reporter(server.url, key, app, quiet);
  for (const row of moved) assert.equal(reportRow(reporter, row), null);
  assert.ok(await reporter.close(10_000));
  assert.equal(reporter.stats().accepted, moved.length);
  const stored = new Map(storedSends(app).map((s) => [s.notification_id, s]));
  assert.equal(stored.size, moved.length);
  return { moved, stored };
}

test('every rule-table row is stored once with every field', async () => {
  const { moved, stored } = await reportAndStore('com.example.node.fields', TABLE.rows);
  const columns = sendColumns();
  for (const row of moved) {
    const send = stored.get(row.send.notification_id);
    for (const [field, expected] of Object.entries(row.send)) {
      if (field === 'app_id') continue;
      const got = TIMES.has(field) ? Date.parse(send[field]) : send[field];
      assert.deepEqual(got, TIMES.has(field) ? Date.parse(expected) : expected, `${row.name}: ${field}`);
    }
    for (const column of columns) {
      if (!(column in row.send) && !['event_id', 'app_id', 'token_key', 'installation_id', 'resolved_by',
        'received_at'].includes(column)) {
        assert.equal(send[column], null, `${row.name}: ${column} should be empty`);
      }
    }
  }
});

test('every Web Push row is stored as the contract says', async () => {
  // Each send's fields as posted; ttl_seconds as expires_at = sent_at + TTL, topic as collapse_id, and the
  // push service the row says the server derives from the endpoint.
  const { moved, stored } = await reportAndStore('com.example.node.webpush', TABLE.webpush_rows);
  for (const row of moved) {
    const { ttl_seconds: ttl, topic, ...expected } = { ...row.send, ...row.stored };
    const send = stored.get(row.send.notification_id);
    for (const [field, value] of Object.entries(expected)) {
      if (field === 'app_id') continue;
      const got = TIMES.has(field) ? Date.parse(send[field]) : send[field];
      assert.deepEqual(got, TIMES.has(field) ? Date.parse(value) : value, `${row.name}: ${field}`);
    }
    const expiry = ttl === undefined ? null : Date.parse(send.sent_at) + ttl * 1000;
    assert.deepEqual([send.collapse_id, send.expires_at && Date.parse(send.expires_at)], [topic ?? null, expiry],
      row.name);
  }
});

test('exactly once across a killed and restarted server', async () => {
  const app = uniqueApp('com.example.node.restart');
  const key = createKey(app);
  const server = await serve();
  const nids = ids(400);
  const reporter = new Reporter(server.url, key, app, { ...quiet, batchSize: 25, flushIntervalMs: 10 });
  for (const [i, nid] of nids.entries()) {
    assert.equal(alert(reporter, nid), null);
    if (i % 25 === 0) await new Promise((resolve) => setImmediate(resolve)); // let batches go out
    if (i === 150) await server.stop('SIGKILL');
    if (i === 250) await server.start();
  }
  assert.ok(await reporter.close(30_000), JSON.stringify(reporter.stats()));
  assert.ok(reporter.stats().retries >= 1, JSON.stringify(reporter.stats()));
  const counts = {};
  for (const s of storedSends(app)) counts[s.notification_id] = (counts[s.notification_id] ?? 0) + 1;
  assert.deepEqual(counts, Object.fromEntries(nids.map((n) => [n, 1])));
});

test('a wrong key holds the sends until the key changes', async () => {
  const app = uniqueApp('com.example.node.wrongkey');
  const key = createKey(app);
  const server = await serve();
  const reporter = new Reporter(server.url, `pl_wrong_${key.slice(-6)}`, app, { ...quiet, flushIntervalMs: 10 });
  const nids = ids(5);
  nids.forEach((nid) => alert(reporter, nid));
  assert.equal(await reporter.flush(1500), false);
  const stats = reporter.stats();
  assert.ok(stats.unauthorized >= 1 && stats.queued === 5 && stats.dropped === 0, JSON.stringify(stats));
  assert.deepEqual(storedSends(app), []);
  reporter.setKey(key);
  assert.ok(await reporter.close(10_000));
  assert.deepEqual(storedIds(app), nids.sort());
});

test('429 waits for Retry-After and loses nothing', async () => {
  const app = uniqueApp('com.example.node.rate');
  const key = createKey(app, '--rate', '40', '--burst', '20');
  const server = await serve();
  const reporter = new Reporter(server.url, key, app, { ...quiet, batchSize: 20, flushIntervalMs: 10 });
  const nids = ids(80);
  nids.forEach((nid) => alert(reporter, nid));
  assert.ok(await reporter.close(30_000));
  const stats = reporter.stats();
  assert.ok(stats.retries >= 1 && stats.accepted === 80, JSON.stringify(stats));
  assert.deepEqual(storedIds(app), nids.sort());
});

test('413 splits the batch', async () => {
  const app = uniqueApp('com.example.node.split');
  const key = createKey(app);
  const server = await serve('--max-events', '7');
  const reporter = new Reporter(server.url, key, app, { ...quiet, batchSize: 50 });
  const nids = ids(40);
  nids.forEach((nid) => alert(reporter, nid));
  assert.ok(await reporter.close(15_000));
  assert.deepEqual([reporter.stats().accepted, reporter.stats().dropped], [40, 0]);
  assert.deepEqual(storedIds(app), nids.sort());
});

test('an unreachable server: the oldest dropped and counted, the send path never blocked', async () => {
  const app = uniqueApp('com.example.node.outage');
  const key = createKey(app);
  const server = new Server(); // not started: nothing listens on its port yet
  servers.push(server);
  const reporter = new Reporter(server.url, key, app, { ...quiet, batchSize: 10, maxQueue: 100, flushIntervalMs: 10 });
  const nids = ids(250);
  const started = performance.now();
  for (const nid of nids) assert.equal(alert(reporter, nid), null);
  assert.ok(performance.now() - started < 1000);
  assert.deepEqual([reporter.stats().dropped, reporter.stats().queued], [150, 100]);
  await reporter.flush(300); // tries and fails while nothing listens
  await server.start();
  assert.ok(await reporter.close(40_000));
  assert.deepEqual(storedIds(app), nids.slice(150).sort());
});
