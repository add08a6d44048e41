// Shared test helpers: the fixtures under Tests/Fixtures, a real `pushledger serve`, and psql.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const BASE_SENT_S = 1796032800; // 2026-11-30T10:00:00Z, the rule table's clock

const RUN = randomUUID().slice(0, 8);
/** An app id of this run alone, so that a database kept between runs holds no earlier sends of it. */
export const uniqueApp = (app) => `${app}.r${RUN}`;

export const fixture = (name) => JSON.parse(readFileSync(join(ROOT, 'Tests', 'Fixtures', name), 'utf8'));

/** A fixture value, or the long one its KEY_repeat spells out (prefix, repeat × times, suffix). */
export function expand(container, key) {
  if (key in container) return container[key];
  const spec = container[`${key}_repeat`];
  return spec ? (spec.prefix ?? '') + spec.repeat.repeat(spec.times) + (spec.suffix ?? '') : undefined;
}

/** The row moved `seconds` later: sent_at, apns-expiration headers, expected sent_at/expires_at. */
export function shifted(row, seconds) {
  const r = structuredClone(row);
  const moveHeader = (h) => {
    if (h && /^[0-9]+$/.test(h['apns-expiration'] ?? '') && h['apns-expiration'] !== '0') {
      h['apns-expiration'] = String(Number(h['apns-expiration']) + seconds);
    }
  };
  const moveTime = (o, k) => {
    if (o[k]) o[k] = new Date(Date.parse(o[k]) + seconds * 1000).toISOString();
  };
  moveHeader(r.request.headers);
  const m = r.request.message?.message ?? r.request.message;
  moveHeader(m?.apns?.headers);
  moveTime(r.report, 'sent_at');
  if (r.send) {
    moveTime(r.send, 'sent_at');
    moveTime(r.send, 'expires_at');
  }
  return r;
}

/** Reports one rule-table row through the public API; the ReportError or null. */
export function reportRow(reporter, row) {
  const { report, answer, request } = row;
  const options = { notificationId: report.notification_id, channel: expand(report, 'channel'),
    campaign: report.campaign, sentAt: new Date(report.sent_at) };
  const body = expand(answer, 'body');
  if (row.provider === 'webpush') {
    return reporter.webpush(expand(request, 'endpoint'), request.headers, answer.status, body, options);
  }
  if (row.provider === 'apns') {
    return reporter.apns(request.token, request.payload, request.headers, answer.status, body,
      { ...options, apnsId: answer.headers['apns-id'] });
  }
  return reporter.fcm(request.message, answer.status, body, options);
}

export function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with scripts/senders.sh test`);
  return value;
}

export const pushledger = (...args) => execFileSync(env('PUSHLEDGER_BIN'), args, { encoding: 'utf8' }).trim();
export const createKey = (app, ...extra) => pushledger('keys', 'create', '--app', app, '--scope', 'sends', ...extra);
export const freePort = () => Number(execFileSync(join(ROOT, 'scripts', 'free-port.sh'), { encoding: 'utf8' }).trim());

export function sql(query) {
  const out = execFileSync('psql', [env('DATABASE_URL'), '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-c', query],
    { encoding: 'utf8' }).trim();
  return out ? JSON.parse(out) : null;
}

export const storedSends = (app) => sql(`select coalesce(json_agg(s), '[]') from sends s where app_id = '${app}'`);
export const sendColumns = () => new Set(sql(
  "select json_agg(column_name) from information_schema.columns where table_name = 'sends'"));

/** `pushledger serve` on a loopback port of its own; restartable on the same port. */
export class Server {
  constructor(...args) {
    this.port = freePort();
    this.args = args;
    this.process = null;
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start() {
    this.process = spawn(env('PUSHLEDGER_BIN'), ['serve', '--listen', `127.0.0.1:${this.port}`, ...this.args],
      { stdio: 'ignore' });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`${this.url}/readyz`)).status === 200) return this;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await this.stop('SIGKILL');
    throw new Error('pushledger serve did not become ready');
  }

  async stop(signal = 'SIGTERM') {
    const child = this.process;
    if (!child) return;
    this.process = null;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}
