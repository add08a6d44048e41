// What the reporter does with each answer of upload-answers.json, against a scripted stand-in: the row's
// answer first, then PushLedger's 200 for whatever comes next.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { Reporter } from '../src/index.js';
import { fixture } from './helpers.js';

const ANSWERS = fixture('upload-answers.json');
const OK = { status: 200, content_type: 'application/json', body: '{"accepted":2,"duplicates":0,"rejected":[]}' };
let script = [];
let requests = [];
const standIn = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const { sends } = JSON.parse(gunzipSync(Buffer.concat(chunks)));
    requests.push({ at: performance.now(), auth: req.headers.authorization, ids: sends.map((s) => s.event_id) });
    const answer = script.shift() ?? OK;
    const headers = {};
    if (answer.content_type !== null) headers['Content-Type'] = answer.content_type;
    if (answer.retry_after) headers['Retry-After'] = answer.retry_after;
    res.writeHead(answer.status, headers).end(answer.body);
  });
});
before(() => new Promise((resolve) => standIn.listen(0, '127.0.0.1', resolve)));
after(() => standIn.close());

for (const row of ANSWERS.rows) {
  test(`the reporter follows ${row.status} ${row.content_type} (${row.outcome})`, async () => {
    [script, requests] = [[row], []];
    const url = `http://127.0.0.1:${standIn.address().port}`;
    const options = { batchSize: 2, flushIntervalMs: 10, logger: null };
    const reporter = new Reporter(url, 'pl_key', 'com.example.shop', options);
    const nid = { notificationId: '5a0d3f4e-0c52-4f0a-8c7e-2d5f3c9b1a77' };
    for (let i = 0; i < 2; i += 1) reporter.fcm({ token: 't', data: { k: 'v' } }, 200, null, nid);
    const drained = await reporter.flush(row.outcome === 'unauthorized' ? 1000 : 8000);
    const stats = reporter.stats();
    await reporter.close(100);
    const [first, ...later] = requests;
    assert.deepEqual([first.auth, first.ids.length], ['Bearer pl_key', 2]);
    if (row.outcome === 'stored' || row.outcome === 'refused') {
      assert.ok(drained && later.length === 0);
      assert.equal(stats.dropped, row.outcome === 'refused' ? 2 : 0);
    } else if (row.outcome === 'split') {
      assert.ok(drained);
      assert.deepEqual(later.map((r) => r.ids.length), [1, 1]);
      assert.deepEqual([...later[0].ids, ...later[1].ids], first.ids);
    } else if (row.outcome === 'unauthorized') {
      assert.ok(!drained && later.length === 0 && stats.queued === 2 && stats.unauthorized === 1);
    } else {
      assert.ok(drained && stats.retries === 1 && stats.dropped === 0, JSON.stringify(stats));
      assert.deepEqual(later[0].ids, first.ids);
      const waited = (later[0].at - first.at) / 1000;
      if (row.retry_after) assert.ok(waited >= Number(row.retry_after) - 0.05, String(waited));
      else assert.ok(waited >= 0.2 && waited < 2, String(waited));
    }
  });
}
