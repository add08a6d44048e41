// PushLedger browser SDK for service workers: receipts, opens, dismissals and subscription changes.
// A classic script for `importScripts` after pushledger-contract.js, pushledger-core.js and pushledger-ledger.js;
// it defines `self.PushLedger`. Module workers import pushledger-sw.mjs instead, which loads the same files.
//
// The push payload the handlers expect (JSON): {"notification_id": "<the send's UUID>", "title": "…",
// "body": "…", "channel": "orders", "link": "https://…", …}. Only `notification_id` is PushLedger's; a push
// without it is left alone. `showNotification` of handlePush copies notification_id, channel and link into
// the notification's `data`, where the click and close handlers read them.
(function (root) {
  'use strict';

  const { Ledger, settingsFields } = root.PushLedgerRuntime;
  const core = root.PushLedgerCore;
  let ledger = null;

  function active() {
    if (!ledger) throw new Error('PushLedger: call PushLedger.configure() at the top of the worker');
    return ledger;
  }

  /** The push's JSON payload, or null (no data, or not JSON). */
  function readPayload(data) {
    if (!data) return null;
    try {
      const payload = data.json();
      return payload !== null && typeof payload === 'object' ? payload : null;
    } catch {
      return null;
    }
  }

  const optional = (key, value) => (typeof value === 'string' && value ? { [key]: value } : {});

  /** PushLedger's fields of a notification's `data` (what handlePush put there). */
  function tracked(notification) {
    const data = notification && notification.data;
    if (!data || typeof data !== 'object' || !core.isUuid(data.notification_id)) return null;
    return data;
  }

  async function recordAndFlush(type, fields) {
    const outcome = await active().record(type, fields);
    await ledger.flush();
    return outcome;
  }

  const PushLedger = {
    /**
     * Call once at the top of the worker, with the same options as the page's `configure` (endpoint,
     * telemetryKey, appId, appVersion, maxAttempts, logger).
     */
    configure(options) {
      ledger = new Ledger({ autoRetry: false, ...options });
      return ledger.opened.then(() => undefined);
    },

    /**
     * From the `push` event: runs `show(payload, showNotification)` (the app decides what to show; the
     * `showNotification(title, options)` it is given is the registration's, with PushLedger's fields added
     * to `data`), then records `notification_received` with `displayed` true only when it was called and
     * resolved. Resolves once the event is queued and an upload was tried; pass it to `event.waitUntil`.
     * @param {PushEvent} event
     * @param {(payload: object|null, showNotification: Function) => Promise<void>} show
     */
    async handlePush(event, show) {
      const payload = readPayload(event.data);
      const notificationId = payload && core.isUuid(payload.notification_id) ? payload.notification_id : null;
      let displayed = false;
      const showNotification = async (title, options = {}) => {
        const data = { ...(options.data || {}), ...(notificationId ? { notification_id: notificationId } : {}),
          ...optional('channel', payload && payload.channel), ...optional('link', payload && payload.link) };
        await root.registration.showNotification(title, { ...options, data });
        displayed = true;
      };
      let failure = null;
      try {
        await show(payload, showNotification);
      } catch (error) {
        failure = error;
      }
      if (notificationId) {
        await recordAndFlush('notification_received', { notification_id: notificationId, displayed,
          ...optional('channel', payload.channel) });
      }
      if (failure) throw failure;
    },

    /**
     * From `notificationclick`: records `notification_opened` with the clicked action's id (`default` for
     * the body) and the notification's link. Pass the promise to `event.waitUntil` beside your own work.
     * @param {NotificationEvent} event
     */
    async handleNotificationClick(event) {
      const data = tracked(event.notification);
      if (!data) return null;
      return recordAndFlush('notification_opened', { notification_id: data.notification_id,
        action: event.action || 'default', ...optional('link', data.link) });
    },

    /** From `notificationclose`: records `notification_dismissed`. @param {NotificationEvent} event */
    async handleNotificationClose(event) {
      const data = tracked(event.notification);
      if (!data) return null;
      return recordAndFlush('notification_dismissed', { notification_id: data.notification_id,
        ...optional('channel', data.channel) });
    },

    /**
     * From `pushsubscriptionchange`: the new subscription (the event's, else the registration's, else a
     * new one with the old subscription's options) is recorded as a `push_token`, then a settings snapshot;
     * without one the snapshot says `expired`. Your own server still needs the new subscription too.
     * @param {Event} event
     * @returns {Promise<PushSubscription|null>}
     */
    async handlePushSubscriptionChange(event) {
      const manager = root.registration.pushManager;
      let subscription = event.newSubscription || null;
      if (!subscription) subscription = await manager.getSubscription().catch(() => null);
      if (!subscription && event.oldSubscription && event.oldSubscription.options) {
        subscription = await manager.subscribe(event.oldSubscription.options).catch((error) => {
          active().log('warning', 'resubscribing failed', { name: error && error.name });
          return null;
        });
      }
      if (subscription) {
        await active().endpointChanged(subscription.endpoint);
        await ledger.record('push_token', { provider: 'webpush', token: subscription.endpoint });
      }
      const fields = await settingsFields(root.registration);
      fields.subscription = subscription ? 'active' : 'expired';
      await recordAndFlush('notification_settings', fields);
      return subscription;
    },

    /** Records any event of the contract from the worker. */
    record(type, fields) {
      return active().record(type, fields);
    },

    /** Uploads the queue now (the page's events too). */
    flush() {
      return active().flush();
    },

    /** Events waiting to be uploaded. */
    pendingCount() {
      return active().pendingCount();
    },
  };

  root.PushLedger = Object.freeze(PushLedger);
})(self);
