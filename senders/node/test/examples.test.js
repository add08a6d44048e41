// The guide's Node snippets: each is a region of a file under examples/ (checked against the guide),
// run here against a real `pushledger serve` and, for HTTP/2, a local stand-in for APNs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pushAPNs, pushFCM } from '../examples/apns-http2.js';
import { Reporter } from '../src/index.js';
import { ROOT, Server, createKey, storedSends, uniqueApp } from './helpers.js';

const servers = [];
after(() => Promise.all(servers.map((s) => s.stop('SIGKILL'))));
const examples = join(ROOT, 'senders', 'node', 'examples');

/** A key for `app`, created before the server starts so that the server knows it at once. */
async function keyAndServer(app) {
  const key = createKey(app);
  const server = new Server();
  servers.push(server);
  return [key, await server.start()];
}

/** The code between `// guide:begin NAME` and `// guide:end` of a file, and the guide's block tagged NAME. */
function regions(name, file) {
  const source = readFileSync(join(examples, file), 'utf8');
  const region = source.split(`// guide:begin ${name}\n`)[1]?.split('// guide:end')[0];
  const guide = readFileSync(join(ROOT, 'docs', 'integrations', 'senders.md'), 'utf8');
  const block = guide.split(`\`\`\`js tested=${name}\n`)[1]?.split('```')[0];
  return [region, block];
}

test("the guide's Node snippets are the examples' code", () => {
  for (const [name, file] of [['node', 'report.js'], ['node-http2', 'apns-http2.js'],
    ['node-fcm-http2', 'apns-http2.js']]) {
    const [region, block] = regions(name, file);
    assert.ok(region && block, `${name}: region or guide block missing`);
    assert.equal(block, region, `${name}: the guide differs from examples/${file}`);
  }
});

test("the guide's one call per provider stores both sends", async () => {
  const app = 'com.example.shop';
  const [key, server] = await keyAndServer(app);
  const [apnsNid, fcmNid] = [randomUUID(), randomUUID()];
  execFileSync('node', [join(examples, 'report.js'), 'cd'.repeat(32), 'fcm-token-guide-node', apnsNid, fcmNid],
    { env: { ...process.env, PUSHLEDGER_URL: server.url, PUSHLEDGER_SENDS_KEY: key } });
  const stored = new Map(storedSends(app).map((s) => [s.notification_id, s]));
  assert.deepEqual([stored.get(apnsNid)?.push_type, stored.get(apnsNid)?.priority], ['alert', 10]);
  assert.deepEqual([stored.get(fcmNid)?.status, stored.get(fcmNid)?.token], [200, 'fcm-token-guide-node']);
});

test('APNs over node:http2: every answer reported as APNs gave it', async () => {
  const app = uniqueApp('com.example.node.http2');
  const [key, server] = await keyAndServer(app);
  const seen = [];
  const apns = http2.createServer(); // h2c stands in for api.push.apple.com (TLS in production)
  apns.on('stream', (stream, headers) => {
    seen.push(headers);
    const token = headers[':path'].split('/').pop();
    const answers = { aa: [200, ''], bb: [410, '{"reason":"Unregistered","timestamp":1796000000000}'],
      cc: [400, '{"reason":"BadDeviceToken"}'] };
    const [status, body] = answers[token.slice(0, 2)];
    stream.resume();
    stream.on('end', () => {
      stream.respond({ ':status': status, 'apns-id': headers['apns-id'] ?? randomUUID().toUpperCase() });
      stream.end(body);
    });
  });
  await new Promise((resolve) => apns.listen(0, '127.0.0.1', resolve));
  const session = http2.connect(`http://127.0.0.1:${apns.address().port}`);
  const reporter = new Reporter(server.url, key, app, { logger: null });
  const nids = { aa: randomUUID(), bb: randomUUID(), cc: randomUUID() };
  const statuses = [];
  for (const [prefix, nid] of Object.entries(nids)) {
    statuses.push(await pushAPNs(session, reporter, {
      token: prefix.repeat(32), payload: { aps: { alert: 'Hi', 'mutable-content': 1 }, notification_id: nid },
      headers: { 'apns-push-type': 'alert', 'apns-expiration': '0', 'apns-collapse-id': 'order-42' },
      auth: { authorization: 'bearer eyJ-not-reported' }, notificationId: nid, channel: 'orders' }));
  }
  session.close();
  apns.close();
  assert.deepEqual(statuses, [200, 410, 400]);
  assert.equal(seen[0].authorization, 'bearer eyJ-not-reported');
  assert.ok(await reporter.close(10_000));
  const stored = new Map(storedSends(app).map((s) => [s.notification_id, s]));
  const [ok, gone, bad] = [nids.aa, nids.bb, nids.cc].map((n) => stored.get(n));
  assert.deepEqual([ok.status, ok.reason, ok.response_body, ok.collapse_id], [200, null, '', 'order-42']);
  assert.deepEqual([ok.mutable_content, gone.mutable_content, ok.message_kind], [true, true, null]);
  assert.equal(Date.parse(ok.expires_at), Date.parse(ok.sent_at));
  assert.ok(ok.latency_ms !== null);
  assert.deepEqual([gone.status, gone.reason, Date.parse(gone.unregistered_at)], [410, 'Unregistered', 1796000000000]);
  assert.deepEqual([bad.status, bad.reason], [400, 'BadDeviceToken']);
});

test('FCM HTTP v1 over node:http2: every answer reported as FCM gave it', async () => {
  const app = uniqueApp('com.example.node.fcm');
  const [key, server] = await keyAndServer(app);
  const fcm = http2.createServer(); // h2c stands in for fcm.googleapis.com
  const unregistered = JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', details: [
    { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }] } });
  fcm.on('stream', (stream) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
      const { message } = JSON.parse(Buffer.concat(chunks));
      const gone = message.token.startsWith('gone');
      stream.respond({ ':status': gone ? 404 : 200, 'content-type': 'application/json' });
      stream.end(gone ? unregistered : '{"name":"projects/shop/messages/0:1"}');
    });
  });
  await new Promise((resolve) => fcm.listen(0, '127.0.0.1', resolve));
  const session = http2.connect(`http://127.0.0.1:${fcm.address().port}`);
  const reporter = new Reporter(server.url, key, app, { logger: null });
  const [okNid, goneNid] = [randomUUID(), randomUUID()];
  const auth = { authorization: 'Bearer ya29.not-reported' };
  const statuses = [
    await pushFCM(session, reporter, { projectId: 'shop', auth, notificationId: okNid,
      message: { token: 'ok-1', notification: { title: 'Hi' }, android: { notification: { channel_id: 'orders' } } } }),
    await pushFCM(session, reporter, { projectId: 'shop', auth, notificationId: goneNid, channel: 'orders',
      message: { token: 'gone-1', data: { order: '42' } } }),
  ];
  session.close();
  fcm.close();
  assert.deepEqual(statuses, [200, 404]);
  assert.ok(await reporter.close(10_000));
  const stored = new Map(storedSends(app).map((s) => [s.notification_id, s]));
  const [ok, gone] = [stored.get(okNid), stored.get(goneNid)];
  assert.deepEqual([ok.status, ok.channel, ok.reason], [200, 'orders', null]);
  assert.deepEqual([gone.status, gone.reason, gone.token], [404, 'UNREGISTERED', 'gone-1']);
});

test('a script that never closes the reporter still has its sends stored before it exits', async () => {
  const app = uniqueApp('com.example.node.exit');
  const [key, server] = await keyAndServer(app);
  const nid = randomUUID();
  const script = `import { Reporter } from ${JSON.stringify(join(ROOT, 'senders', 'node', 'src', 'index.js'))};
    const reporter = new Reporter(${JSON.stringify(server.url)}, ${JSON.stringify(key)}, '${app}');
    reporter.fcm({ token: 'fcm-exit', data: { a: 'b' } }, 200, null, { notificationId: '${nid}' });`;
  execFileSync('node', ['--input-type=module', '-e', script], { timeout: 15_000 });
  assert.deepEqual(storedSends(app).map((s) => s.notification_id), [nid]);
});
