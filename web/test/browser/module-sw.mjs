// The browser suite's module service worker (registered with {type: 'module'} on the scope /app/module/): the
// guide's module-worker lines between the guide markers, then a push listener like the classic worker's.
const config = new URL(location.href).searchParams;
const PUSHLEDGER_URL = config.get('endpoint');
const TELEMETRY_KEY = config.get('key');
const APP_ID = config.get('app');

// guide:begin module-worker
import PushLedger from '/pushledger/pushledger-sw.mjs';
PushLedger.configure({ endpoint: PUSHLEDGER_URL, telemetryKey: TELEMETRY_KEY, appId: APP_ID });
// guide:end

self.addEventListener('push', (event) => {
  event.waitUntil(PushLedger.handlePush(event, async (payload, showNotification) => {
    await showNotification(payload.title, { body: payload.body });
  }));
});
self.addEventListener('install', () => self.skipWaiting());
