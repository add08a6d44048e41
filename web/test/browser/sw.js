// The browser suite's service worker: the integration guide's worker snippet (between the guide markers,
// equal to docs/integrations/web.md's block) and a test hook. The hook dispatches real NotificationEvents
// built from the worker's real notifications to the guide's listeners, because no DevTools command clicks
// or closes a notification; waitUntil is replaced on those events since an untrusted event may not call it.
const config = new URL(location.href).searchParams;
const PUSHLEDGER_URL = config.get('endpoint');
const TELEMETRY_KEY = config.get('key');
const APP_ID = config.get('app');

// guide:begin worker
importScripts('/pushledger/pushledger-contract.js', '/pushledger/pushledger-core.js',
  '/pushledger/pushledger-ledger.js', '/pushledger/pushledger-sw.js');
PushLedger.configure({ endpoint: PUSHLEDGER_URL, telemetryKey: TELEMETRY_KEY, appId: APP_ID, appVersion: '1.4.0' });

self.addEventListener('push', (event) => {
  event.waitUntil(PushLedger.handlePush(event, async (payload, showNotification) => {
    if (!payload || payload.silent) return; // shown nothing: recorded with displayed false
    await showNotification(payload.title, { body: payload.body,
      actions: [{ action: 'track_order', title: 'Track order' }] });
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const link = event.notification.data && event.notification.data.link;
  event.waitUntil(Promise.all([PushLedger.handleNotificationClick(event), link && clients.openWindow(link)]));
});

self.addEventListener('notificationclose', (event) => {
  event.waitUntil(PushLedger.handleNotificationClose(event));
});

self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(PushLedger.handlePushSubscriptionChange(event));
});
// guide:end

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(clients.claim()));

const recorded = [];
PushLedgerRuntime.observe((event) => recorded.push(event));

/** Dispatches `event` to the listeners above and resolves once what they passed to waitUntil settled. */
async function dispatch(event) {
  const promises = [];
  Object.defineProperty(event, 'waitUntil', { value: (promise) => promises.push(promise) });
  self.dispatchEvent(event);
  await Promise.allSettled(promises);
}

async function notificationOf(id) {
  const shown = await self.registration.getNotifications();
  const notification = shown.find((n) => n.data && n.data.notification_id === id);
  if (!notification) throw new Error(`no notification shown for ${id}`);
  return notification;
}

const hooks = {
  recorded: async () => recorded.map((event) => event.event_id),
  // Asked while a push is handled instead of getNotifications(), which then can miss the notification shown.
  received: async () => recorded.filter((e) => e.type === 'notification_received')
    .map((e) => [e.notification_id, e.displayed]),
  pending: () => PushLedger.pendingCount(),
  flush: () => PushLedger.flush(),
  shown: async () => (await self.registration.getNotifications()).map((n) => n.data && n.data.notification_id),
  click: async ({ id, action }) => dispatch(new NotificationEvent('notificationclick',
    { notification: await notificationOf(id), action: action || '' })),
  close: async ({ id }) => dispatch(new NotificationEvent('notificationclose',
    { notification: await notificationOf(id) })),
  subscriptionChange: async ({ endpoint }) => {
    const event = new ExtendableEvent('pushsubscriptionchange');
    Object.defineProperty(event, 'newSubscription', { value: endpoint ? { endpoint } : null });
    Object.defineProperty(event, 'oldSubscription', { value: null });
    await dispatch(event);
  },
};

self.addEventListener('message', (event) => {
  const { op, args } = event.data;
  const port = event.ports[0];
  event.waitUntil(Promise.resolve().then(() => hooks[op](args)).then(
    (result) => port.postMessage({ result: result === undefined ? null : result }),
    (error) => port.postMessage({ error: String(error) })));
});
