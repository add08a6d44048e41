// The browser suite's page: the integration guide's page snippet (the region between the guide markers, equal
// to docs/integrations/web.md's block) and the hooks web/test/browser_suite.py calls through the DevTools
// protocol. The server's address, key and app come in the query string.
const query = new URLSearchParams(location.search);
const PUSHLEDGER_URL = query.get('endpoint');
const TELEMETRY_KEY = query.get('key');
const APP_ID = query.get('app');
const SERVICE_WORKER_URL = `/app/sw.js?${query}`;
const recorded = [];
globalThis.PushLedgerRuntime.observe((event) => recorded.push(event.event_id));

// guide:begin page
import * as PushLedger from '/pushledger/pushledger.js';

const registration = await navigator.serviceWorker.register(SERVICE_WORKER_URL);
await PushLedger.configure({ endpoint: PUSHLEDGER_URL, telemetryKey: TELEMETRY_KEY, appId: APP_ID,
  appVersion: '1.4.0', registration });
// guide:end

// A real subscription needs the browser's push service, which the suite has no access to: a VAPID key of the
// right shape still lets pushManager.subscribe run until it fails.
const VAPID_PUBLIC_KEY = 'BNbxGYNMhEIi9zrneh7mqV4oUanjLUK3m-mYZBc62frMKrEoMk88r3Lk596T0ck9xlT-' +
  'udXvw_5wMz42Xbk_Iz4';

/** One request to the service worker's test hook, answered by postMessage. */
async function worker(op, args = {}) {
  const ready = await navigator.serviceWorker.ready;
  const channel = new MessageChannel();
  const answer = new Promise((resolve) => { channel.port1.onmessage = (event) => resolve(event.data); });
  ready.active.postMessage({ op, args }, [channel.port2]);
  return answer;
}

window.T = {
  recorded: () => recorded.slice(),
  installationId: () => PushLedger.installationId(),
  settings: () => PushLedger.recordSettings(),
  request: (placement) => PushLedger.requestPermission({ placement }),
  primer: (placement, choice) => PushLedger.primer({ placement, show: async () => choice }),
  exposure: (variant) => PushLedger.record('experiment_exposure', { experiment: 'web_suite', variant }),
  invalid: () => PushLedger.record('permission_prompt', { placement: 'Not A Slug', prompt: 'system',
    result: 'granted' }),
  subscribe: async (timeoutMs) => PushLedger.subscribe(await navigator.serviceWorker.ready,
    { applicationServerKey: VAPID_PUBLIC_KEY, timeoutMs }),
  flush: () => PushLedger.flush(),
  pending: () => PushLedger.pendingCount(),
  permission: () => Notification.permission,
  registerModuleWorker: async () => {
    const module = await navigator.serviceWorker.register(`/app/module-sw.mjs?${query}`,
      { type: 'module', scope: '/app/module/' });
    const worker = module.installing || module.waiting || module.active;
    if (worker.state !== 'activated') {
      await new Promise((resolve) => worker.addEventListener('statechange',
        () => worker.state === 'activated' && resolve()));
    }
    return module.scope;
  },
  worker,
};
