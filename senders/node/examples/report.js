// The senders' guide's Node snippet (docs/integrations/senders.md), run by test/examples.test.js.
// Usage: PUSHLEDGER_URL=… PUSHLEDGER_SENDS_KEY=… node examples/report.js TOKEN FCM_TOKEN NOTIFICATION_ID…
import { Reporter } from '../src/index.js';

const [token, fcmToken, apnsNotificationId, fcmNotificationId] = process.argv.slice(2);
const payload = { aps: { alert: 'Out for delivery', 'mutable-content': 1 } };
const headers = { 'apns-push-type': 'alert', 'apns-priority': '10' };
const message = { token: fcmToken, data: { order: '42' } };
const [status, body] = [200, ''];

// guide:begin node
const reporter = new Reporter(process.env.PUSHLEDGER_URL, process.env.PUSHLEDGER_SENDS_KEY, 'com.example.shop');
// After each APNs request: the token, payload and apns-* headers sent, the status and body received.
reporter.apns(token, payload, headers, status, body, { notificationId: apnsNotificationId, channel: 'orders' });
// After each FCM HTTP v1 request: the message sent, the status and body received.
reporter.fcm(message, 200, '{"name":"projects/shop/messages/1"}', { notificationId: fcmNotificationId });
await reporter.close(); // at shutdown: what is still queued goes out
// guide:end
