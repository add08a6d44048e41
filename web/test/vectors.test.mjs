// The core's validator against every /v1/telemetry vector of docs/contract/vectors: the same status and the
// same answer (per-event codes and messages) as the vector expects from the server.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import core from '../pushledger-core.js';
import { ROOT } from './helpers.mjs';

const DIRECTORY = join(ROOT, 'docs', 'contract', 'vectors');

/** The vector's placeholders filled: times, and one fresh UUID per {{id:NAME}}. */
function fill(text, now) {
  const iso = (ms) => new Date(ms).toISOString();
  const ids = new Map();
  return text.replaceAll('{{now}}', iso(now)).replaceAll('{{now-31d}}', iso(now - 31 * 86400000))
    .replaceAll('{{now+2d}}', iso(now + 2 * 86400000))
    .replace(/\{\{id:[a-z0-9_]+\}\}/g, (name) => {
      if (!ids.has(name)) ids.set(name, randomUUID());
      return ids.get(name);
    });
}

/** The answer equals the expectation, where an expected string may hold {{time}} or {{int}}. */
function matches(actual, expected) {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length
      && expected.every((e, i) => matches(actual[i], e));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const keys = Object.keys(expected);
    return keys.length === Object.keys(actual).length
      && keys.every((k) => k in actual && matches(actual[k], expected[k]));
  }
  if (typeof expected === 'string' && expected.includes('{{') && typeof actual === 'string') {
    const escape = (part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = expected.split(/(\{\{time\}\}|\{\{int\}\})/).map((part) => (part === '{{time}}'
      ? '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z' : part === '{{int}}' ? '[0-9]+' : escape(part)));
    return new RegExp(`^${pattern.join('')}$`).test(actual);
  }
  return actual === expected;
}

const vectors = readdirSync(DIRECTORY).filter((name) => name.endsWith('.json')).sort().map((name) => {
  const now = Date.now();
  const vector = JSON.parse(fill(readFileSync(join(DIRECTORY, name), 'utf8'), now));
  return { name, now, vector };
});
// Vectors about what the SDK never judges (sends, keys, content types) belong to the server's suite.
const judged = vectors.filter(({ vector }) => vector.path === '/v1/telemetry' && vector.key === 'telemetry'
  && vector.content_type === 'application/json');

test('the telemetry vectors are there, web ones among them', () => {
  assert.ok(judged.length >= 15, `only ${judged.length} telemetry vectors in ${DIRECTORY}`);
  assert.ok(judged.some(({ vector }) => vector.body && vector.body.platform === 'web'), 'no web vector');
});

for (const { name, now, vector } of judged) {
  test(`vector ${name}`, () => {
    const body = vector.body_text ?? JSON.stringify(vector.body);
    const verdict = core.validate(body, 'com.example.shop', now);
    assert.equal(verdict.status, vector.expect.status, JSON.stringify(verdict.body));
    if (verdict.body.error === 'invalid_json') {
      // JSON parsers word their syntax errors differently; the code is what counts.
      assert.equal(verdict.body.error, vector.expect.body.error);
    } else {
      assert.ok(matches(verdict.body, vector.expect.body),
        `expected ${JSON.stringify(vector.expect.body)}\n     got ${JSON.stringify(verdict.body)}`);
    }
  });
}
