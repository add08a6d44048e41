// PushLedger browser SDK for pages (an ES module; no dependencies, no build step). Records what the browser
// says about notifications (docs/contract.md, "Web Push: the browser as a platform") and uploads it to a
// PushLedger server. The service worker side is pushledger-sw.js; both share one queue in IndexedDB.
import './pushledger-contract.js';
import './pushledger-core.js';
import './pushledger-ledger.js';

const { Ledger, settingsFields } = globalThis.PushLedgerRuntime;
const PROMPT_RESULT = { granted: 'granted', denied: 'denied', default: 'dismissed' };

let ledger = null;
let registrationSource = null;
let flushTimer = null;
let listening = false;

/**
 * Starts the SDK on this page: opens the queue, records a settings snapshot (and the push endpoint when
 * it changed since the last one recorded), starts uploading what is queued, and from then on records a snapshot
 * each time the page becomes visible and uploads with `keepalive` when it is hidden.
 *
 * @param {object} options
 * @param {string} options.endpoint PushLedger server base URL, e.g. `https://ingest.example.com`
 * @param {string} options.telemetryKey a `telemetry`-scoped key of the app (it ships in the page)
 * @param {string} options.appId the key's app id
 * @param {string} [options.appVersion] the site's release
 * @param {ServiceWorkerRegistration|Promise<ServiceWorkerRegistration>} [options.registration] the worker
 *   that receives pushes (default: `navigator.serviceWorker.getRegistration()`)
 * @param {number} [options.flushDelayMs=1000] how long recorded events wait to be uploaded together
 * @param {(level: string, message: string, fields: object) => void} [options.logger] silent by default
 * @returns {Promise<{installationId: string}>}
 */
export async function configure(options) {
  ledger = new Ledger({ autoRetry: true, ...options });
  registrationSource = options.registration ?? null;
  await ledger.opened;
  if (!listening) {
    listening = true;
    document.addEventListener('visibilitychange', () => {
      if (!ledger) return;
      if (document.visibilityState === 'visible') {
        recordSettings().then(() => scheduleFlush());
      } else {
        ledger.flushOnHide();
      }
    });
    addEventListener('pagehide', () => ledger && ledger.flushOnHide());
  }
  const registration = await currentRegistration();
  await recordSettings(registration);
  const subscription = await pushSubscription(registration);
  if (subscription && (await ledger.endpointChanged(subscription.endpoint))) await recordToken(subscription.endpoint);
  // Not awaited: with the server unreachable the retries would hold the page's start for seconds.
  ledger.flush();
  return { installationId: ledger.installationId };
}

function active() {
  if (!ledger) throw new Error('PushLedger: call configure() first');
  return ledger;
}

async function currentRegistration() {
  try {
    if (registrationSource) return await registrationSource;
    return navigator.serviceWorker ? (await navigator.serviceWorker.getRegistration()) ?? null : null;
  } catch {
    return null;
  }
}

async function pushSubscription(registration) {
  try {
    return registration && registration.pushManager ? await registration.pushManager.getSubscription() : null;
  } catch {
    return null;
  }
}

function scheduleFlush() {
  clearTimeout(flushTimer);
  flushTimer = setTimeout(() => active().flush(), active().options.flushDelayMs ?? 1000);
}

/**
 * Records an event of the contract and schedules an upload.
 * @returns {Promise<{event_id: string} | {dropped: {code: string, message: string}}>}
 */
export async function record(type, fields) {
  const outcome = await active().record(type, fields);
  if (outcome.event_id) scheduleFlush();
  return outcome;
}

/**
 * Records a `notification_settings` snapshot: permission, push permission, display mode, subscription.
 * @param {ServiceWorkerRegistration} [registration] default: the one given to configure
 */
export async function recordSettings(registration) {
  const reg = registration ?? (await currentRegistration());
  const standalone = typeof matchMedia === 'function' && matchMedia('(display-mode: standalone)').matches;
  // iOS home-screen apps also say so through navigator.standalone.
  const displayMode = standalone || navigator.standalone === true ? 'standalone' : 'browser';
  return record('notification_settings', await settingsFields(reg, displayMode));
}

/**
 * `Notification.requestPermission()`, recorded as a `permission_prompt` (`system`): `granted`, `denied`,
 * `dismissed` (closed without a choice) or `already_determined` (not asked: the user had answered before).
 * A settings snapshot follows. Call it from a user gesture: browsers ignore prompts without one.
 * @param {{placement: string}} options where in the journey, a slug such as `after_first_order`
 * @returns {Promise<NotificationPermission>} the permission afterwards
 */
export async function requestPermission({ placement }) {
  active();
  if (typeof Notification !== 'function') return 'denied';
  if (Notification.permission !== 'default') {
    await record('permission_prompt', { placement, prompt: 'system', result: 'already_determined' });
    return Notification.permission;
  }
  // Safari before 15.4 answers through a callback only.
  const permission = await new Promise((resolve) => {
    const promise = Notification.requestPermission(resolve);
    if (promise && typeof promise.then === 'function') promise.then(resolve, () => resolve(Notification.permission));
  });
  await record('permission_prompt', { placement, prompt: 'system', result: PROMPT_RESULT[permission] ?? 'dismissed' });
  await recordSettings();
  return permission;
}

/**
 * The site's own pre-permission screen: `show()` resolves `true` (the user agreed), `false` (declined) or
 * `null` (closed it); recorded as a `primer` prompt, then on `true` the system prompt is requested.
 * @param {{placement: string, show: () => Promise<boolean|null>}} options
 * @returns {Promise<NotificationPermission>}
 */
export async function primer({ placement, show }) {
  const choice = await show();
  const result = choice === true ? 'granted' : choice === false ? 'denied' : 'dismissed';
  await record('permission_prompt', { placement, prompt: 'primer', result });
  if (choice === true) return requestPermission({ placement });
  return typeof Notification === 'function' ? Notification.permission : 'denied';
}

async function recordToken(endpoint) {
  return record('push_token', { provider: 'webpush', token: endpoint });
}

/**
 * Subscribes `registration` to Web Push and records the endpoint as a `push_token` (`webpush`; the
 * subscription's keys are never sent), then a settings snapshot. Errors are values: when the browser
 * refuses (permission not granted, a bad key) or no push service answers within `timeoutMs`, the snapshot
 * records the subscription state and the error returns. A subscription that arrives after its timeout is
 * still recorded when it does.
 * @param {ServiceWorkerRegistration} registration
 * @param {{applicationServerKey: BufferSource|string, timeoutMs?: number}} options the sender's VAPID
 *   public key; how long to wait for the push service (default 30 s)
 * @returns {Promise<{subscription: PushSubscription} | {error: {name: string, message: string}}>}
 */
export async function subscribe(registration, { applicationServerKey, timeoutMs = 30000 }) {
  active();
  const pending = Promise.resolve().then(() => registration.pushManager.subscribe({ userVisibleOnly: true,
    applicationServerKey }));
  let timer;
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new DOMException(`no answer from the push service within ${timeoutMs} ms`,
      'TimeoutError')), timeoutMs);
  });
  try {
    const subscription = await Promise.race([pending, timeout]);
    await subscribed(registration, subscription);
    return { subscription };
  } catch (error) {
    const failure = { name: (error && error.name) || 'Error', message: String((error && error.message) || error) };
    ledger.log('warning', 'push subscription failed', failure);
    await recordSettings(registration);
    if (failure.name === 'TimeoutError') pending.then((late) => subscribed(registration, late), () => {});
    return { error: failure };
  } finally {
    clearTimeout(timer);
  }
}

async function subscribed(registration, subscription) {
  await ledger.endpointChanged(subscription.endpoint);
  await recordToken(subscription.endpoint);
  await recordSettings(registration);
}

/**
 * Uploads the queue now.
 * @returns {Promise<object>} the flush result: accepted, duplicates, rejected, remaining, failure
 */
export function flush() {
  return active().flush();
}

/** Events waiting to be uploaded (the worker's too). @returns {Promise<number>} */
export function pendingCount() {
  return active().pendingCount();
}

/** This browser profile's installation id (shared with the service worker). @returns {string} */
export function installationId() {
  return active().installationId;
}
