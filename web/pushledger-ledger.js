// PushLedger browser SDK, runtime shared by the page and the service worker: one installation id and one
// durable event queue in IndexedDB (the same database for both, so an event recorded in the worker can be
// sent by the page and back), the uploads (gzip, keepalive on page hide, backoff) and the settings snapshot.
// A classic script like pushledger-core.js (load pushledger-contract.js and it first); it defines
// `globalThis.PushLedgerRuntime`.
(function (root) {
  'use strict';

  const core = root.PushLedgerCore;
  const DB_NAME = 'pushledger';
  const FLUSH_LOCK = 'pushledger-flush';
  // Room left under the 64 KiB keepalive quota for headers and for another script's keepalive requests.
  const KEEPALIVE_BODY = core.KEEPALIVE_BYTES - 4096;

  const done = (request) => new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const committed = (tx) => new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error('transaction aborted'));
  });

  /** The origin's PushLedger database: `meta` (installation id, last endpoint) and `events` (the queue). */
  function openDatabase(name = DB_NAME) {
    const request = root.indexedDB.open(name, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore('meta');
      request.result.createObjectStore('events', { keyPath: 'seq', autoIncrement: true });
    };
    return done(request);
  }

  /** The event queue: records `{seq, context, text, bytes, event_id}` in the order they were recorded. */
  class Queue {
    constructor(db) {
      this.db = db;
    }

    async add(record) {
      const tx = this.db.transaction('events', 'readwrite');
      const key = done(tx.objectStore('events').add(record));
      await committed(tx);
      return key;
    }

    async all() {
      const rows = await done(this.db.transaction('events').objectStore('events').getAll());
      return rows.map((row) => ({ ...row, key: row.seq }));
    }

    async remove(keys) {
      const tx = this.db.transaction('events', 'readwrite');
      for (const key of keys) tx.objectStore('events').delete(key);
      await committed(tx);
    }

    async count() {
      return done(this.db.transaction('events').objectStore('events').count());
    }
  }

  /**
   * A value of `meta`, minted by `make` in the same read-write transaction when absent: IndexedDB runs
   * read-write transactions on one store one at a time, so the page and the worker agree on one value.
   */
  async function metaValue(db, key, make) {
    const tx = db.transaction('meta', 'readwrite');
    const store = tx.objectStore('meta');
    let value = await done(store.get(key));
    if (value === undefined && make) {
      value = make();
      store.put(value, key);
    }
    await committed(tx);
    return value;
  }

  async function setMeta(db, key, value) {
    const tx = db.transaction('meta', 'readwrite');
    tx.objectStore('meta').put(value, key);
    await committed(tx);
  }

  /** `{browser, browser_version, os_version}` of this browser, high-entropy client hints when it has them. */
  async function identify(navigator) {
    let hints = navigator && navigator.userAgentData;
    if (hints && typeof hints.getHighEntropyValues === 'function') {
      try {
        hints = { ...hints.toJSON(), ...(await hints.getHighEntropyValues(['fullVersionList', 'platformVersion'])) };
      } catch {
        hints = hints.toJSON ? hints.toJSON() : hints;
      }
    }
    return core.identifyBrowser(navigator ? navigator.userAgent : '', hints);
  }

  async function gzip(text) {
    const stream = new Blob([text]).stream().pipeThrough(new root.CompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  /**
   * The `notification_settings` fields of this browser now (contract v1.3, web): `Notification.permission`,
   * `PushManager.permissionState`, the subscription state of `registration` and, in a page, `displayMode`.
   */
  async function settingsFields(registration, displayMode) {
    const manager = registration && registration.pushManager;
    let pushState;
    try {
      pushState = manager ? await manager.permissionState({ userVisibleOnly: true }) : undefined;
    } catch {
      pushState = undefined; // Safari before 16 has no permissionState for Web Push.
    }
    const permission = typeof root.Notification === 'function' ? root.Notification.permission : undefined;
    const fields = {
      authorization_status: { granted: 'authorized', denied: 'denied', default: 'not_determined' }[permission]
        ?? { granted: 'authorized', denied: 'denied', prompt: 'not_determined' }[pushState] ?? 'not_determined',
    };
    if (pushState) fields.push_permission_state = pushState;
    if (displayMode) fields.display_mode = displayMode;
    if (manager) {
      try {
        const subscription = await manager.getSubscription();
        fields.subscription = !subscription ? 'none'
          : subscription.expirationTime && subscription.expirationTime < Date.now() ? 'expired' : 'active';
      } catch {
        // No push service reachable: the state is unknown, so it is not said.
      }
    }
    return fields;
  }

  /**
   * One configured ledger: records events into the queue and uploads them. Options: `endpoint` (the
   * PushLedger server's base URL), `telemetryKey`, `appId`, optional `appVersion`, `maxAttempts` (4),
   * `maxBatchEvents` (500), `autoRetry` (schedule the next upload after a failure; pages only), `logger`
   * (`(level, message, fields) => void`, silent by default) and `fetch` (a replacement for the global fetch).
   */
  class Ledger {
    constructor(options) {
      for (const key of ['endpoint', 'telemetryKey', 'appId']) {
        if (typeof options[key] !== 'string' || !options[key]) throw new TypeError(`PushLedger: ${key} is required`);
      }
      this.options = { maxAttempts: 4, maxBatchEvents: 500, autoRetry: false, ...options };
      this.url = `${options.endpoint.replace(/\/+$/, '')}/v1/telemetry`;
      this.log = typeof options.logger === 'function' ? options.logger : () => {};
      this.fetch = options.fetch || root.fetch.bind(root);
      this.cache = new Map(); // queued records as last seen, for the synchronous keepalive flush
      this.inFlight = new Set(); // keys a keepalive request carries (visibilitychange and pagehide both fire)
      this.failures = 0;
      this.notBefore = 0;
      this.blocked = null; // the 401/403 that stopped uploads until the next configure
      this.chain = Promise.resolve();
      this.opened = this.open();
    }

    async open() {
      const db = await openDatabase();
      const installationId = await metaValue(db, 'installation_id', () => root.crypto.randomUUID());
      const identity = await identify(root.navigator);
      const version = this.options.appVersion ? { app_version: String(this.options.appVersion) } : {};
      const context = { ...identity, ...version };
      this.db = db;
      this.queue = new Queue(db);
      this.installationId = installationId;
      this.context = JSON.stringify(context);
      this.envelope = { app_id: this.options.appId, installation_id: installationId, platform: 'web' };
      for (const record of await this.queue.all()) this.cache.set(record.key, record);
      return this;
    }

    /**
     * Records one event: `{event_id}` once it is in the queue, or `{dropped: {code, message}}` when it
     * breaks the contract (it would be refused: it is not queued, the rest go on).
     */
    async record(type, fields) {
      await this.opened;
      const event = { event_id: root.crypto.randomUUID(), type, at: new Date().toISOString(), ...fields };
      const verdict = core.judgeEvent(event, 'web', null, Date.now() * 1000);
      if (verdict.eventId === undefined) {
        this.log('warning', 'event dropped: it breaks the contract', { type, code: verdict.code,
          message: verdict.message });
        return { dropped: { code: verdict.code, message: verdict.message } };
      }
      const text = JSON.stringify(event);
      const record = { context: this.context, text, bytes: core.utf8(text), event_id: event.event_id };
      const key = await this.queue.add(record);
      this.cache.set(key, { ...record, seq: key, key });
      for (const observer of observers) observer(event);
      return { event_id: event.event_id };
    }

    /** The last recorded push endpoint differs from `endpoint`: remember it and say so. */
    async endpointChanged(endpoint) {
      await this.opened;
      if ((await metaValue(this.db, 'endpoint')) === endpoint) return false;
      await setMeta(this.db, 'endpoint', endpoint);
      return true;
    }

    /**
     * Uploads the queue (one flush at a time per browser profile: the Web Locks API where present).
     * Resolves to `{accepted, duplicates, rejected, remaining, failure}`; never rejects.
     */
    flush() {
      const run = () => this.flushNow().catch((error) => ({ accepted: 0, duplicates: 0, rejected: [], remaining: null,
        failure: { outcome: 'error', status: 0, code: error && error.name ? error.name : 'error' } }));
      const locks = root.navigator && root.navigator.locks;
      this.chain = this.chain.then(() => (locks ? locks.request(FLUSH_LOCK, run) : run()));
      return this.chain;
    }

    async flushNow() {
      await this.opened;
      if (this.blocked) {
        return { accepted: 0, duplicates: 0, rejected: [], remaining: await this.queue.count(), failure: this.blocked };
      }
      const result = await core.flushQueue({ queue: this.queue, post: (body) => this.post(body, false),
        envelope: this.envelope, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        maxAttempts: this.options.maxAttempts, maxBatchEvents: this.options.maxBatchEvents });
      this.cache = new Map((await this.queue.all()).map((record) => [record.key, record]));
      this.settle(result);
      return result;
    }

    /** Backoff bookkeeping after a flush, and what it says in the log (never keys or whole endpoints). */
    settle(result) {
      for (const item of result.rejected) {
        this.log('warning', 'event rejected by the server; dropped', { event_id: item.event_id, code: item.code,
          message: item.message });
      }
      if (!result.failure) {
        this.failures = 0;
        this.notBefore = 0;
        return;
      }
      this.log('warning', 'upload incomplete', { remaining: result.remaining, ...result.failure });
      if (result.failure.outcome === 'unauthorized') {
        this.blocked = result.failure;
        return;
      }
      this.failures++;
      const delay = core.retryDelayMs(this.failures, result.failure.retryAfter, Math.random());
      this.notBefore = Date.now() + delay;
      if (this.options.autoRetry) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.flush(), delay);
      }
    }

    /**
     * The page is going away: one keepalive request with what fits in the keepalive quota, sent now, from
     * memory (nothing asynchronous may run first). The events stay queued until an answer says otherwise,
     * so when the answer is lost they are sent again next time and the server counts them as duplicates.
     */
    flushOnHide() {
      if (!this.envelope || this.blocked) return;
      const records = [...this.cache.values()].filter((r) => !this.inFlight.has(r.key)).sort((a, b) => a.key - b.key);
      if (!records.length) return;
      const budget = (context) => KEEPALIVE_BODY - core.utf8(core.requestBody(this.envelope, context, 0, []));
      const batch = core.nextBatch([], records, this.options.maxBatchEvents, budget);
      if (!batch || core.utf8(core.requestBody(this.envelope, batch.context, Date.now(),
        batch.records.map((r) => r.text))) > KEEPALIVE_BODY) return;
      const body = core.requestBody(this.envelope, batch.context, Date.now(), batch.records.map((r) => r.text));
      const keys = batch.records.map((r) => r.key);
      for (const key of keys) this.inFlight.add(key);
      this.post(body, true).then((response) => {
        const answer = core.interpretAnswer(response.status, response.contentType, response.text, response.retryAfter,
          batch.records.length);
        if (answer.outcome === 'stored' || answer.outcome === 'refused') {
          for (const key of keys) this.cache.delete(key);
          return this.queue.remove(keys);
        }
        return undefined;
      }).catch(() => {}).finally(() => {
        for (const key of keys) this.inFlight.delete(key);
      });
    }

    /** One POST; keepalive bodies go uncompressed (CompressionStream is asynchronous). */
    async post(body, keepalive) {
      const headers = { Authorization: `Bearer ${this.options.telemetryKey}`, 'Content-Type': 'application/json',
        'X-PushLedger-SDK': `pushledger-web/${core.SDK_VERSION}` };
      let payload = body;
      if (!keepalive && typeof root.CompressionStream === 'function') {
        payload = await gzip(body);
        headers['Content-Encoding'] = 'gzip';
      }
      const response = await this.fetch(this.url, { method: 'POST', headers, body: payload, keepalive,
        credentials: 'omit', mode: 'cors', cache: 'no-store' });
      return { status: response.status, contentType: response.headers.get('Content-Type'), text: await response.text(),
        retryAfter: response.headers.get('Retry-After') };
    }

    /** Events waiting in the queue (recorded by the page or the worker). */
    async pendingCount() {
      await this.opened;
      return this.queue.count();
    }
  }

  const observers = new Set();

  /**
   * Calls `callback` with each event this page or worker queues, until the returned function is called: for a
   * site's own debugging and for tests (the browser suite compares what was queued with what was stored).
   */
  function observe(callback) {
    observers.add(callback);
    return () => observers.delete(callback);
  }

  root.PushLedgerRuntime = Object.freeze({ Ledger, Queue, openDatabase, settingsFields, identify, observe });
})(typeof globalThis !== 'undefined' ? globalThis : self);
