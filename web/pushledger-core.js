// PushLedger browser SDK, pure core: the shared retry rule, what each upload answer means, batching, the flush
// loop and browser identification, over pushledger-contract.js (load that first). No DOM, no IndexedDB: the page,
// the service worker and Node's test runner load the same files. Classic scripts on purpose: `importScripts`
// (classic service workers) cannot load ES modules, and an ES module can import them for their side effect.
// It defines `globalThis.PushLedgerCore`: the contract's API and its own.
(function (root) {
  'use strict';

  const contract = root.PushLedgerContract
    || (typeof require === 'function' ? require('./pushledger-contract.js') : undefined);
  const { LIMITS, VERSION, utf8, isObject } = contract;

  const SDK_VERSION = '0.1.0';

  /** Browsers refuse a keepalive request once the keepalive bodies in flight pass 64 KiB. */
  const KEEPALIVE_BYTES = 65536;

  /**
   * The upload retry rule shared by every SDK; a copy of Tests/Fixtures/retry-delays.json's policy (a test
   * checks that the two are equal).
   */
  const RETRY_POLICY = Object.freeze({ base_delay_s: 0.5, max_delay_s: 30, max_retry_after_s: 60 });

  /** The 400 codes with which PushLedger refuses a request whole: the only 400s that may drop events. */
  const REFUSAL_CODES = Object.freeze(['invalid_json', 'invalid_gzip', 'missing_field', 'invalid_field', 'unstorable']);

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

  const api = { ...contract, SDK_VERSION, KEEPALIVE_BYTES, RETRY_POLICY, REFUSAL_CODES, retryDelayMs, ownError,
    interpretAnswer, requestBody, nextBatch, flushQueue, identifyBrowser, parseUserAgent };
  root.PushLedgerCore = Object.freeze(api);
  if (typeof module === 'object' && module && module.exports) module.exports = api;
})(typeof globalThis !== 'undefined' ? globalThis : self);
