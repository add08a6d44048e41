// APNs over Node's own HTTP/2 client, every attempt reported (the senders' guide; run by
// test/examples.test.js against a local stand-in for APNs).
import http2 from 'node:http2';

// guide:begin node-http2
/**
 * Sends one notification on an HTTP/2 session to APNs (http2.connect('https://api.push.apple.com')) and
 * reports the attempt, answered or not. `auth` is the provider token header, kept out of the report.
 */
export function pushAPNs(session, reporter, { token, payload, headers, auth, notificationId, channel }) {
  const sentAt = new Date();
  const body = JSON.stringify(payload);
  return new Promise((resolve) => {
    const request = session.request({ ':method': 'POST', ':path': `/3/device/${token}`, ...headers, ...auth });
    let answer = {};
    let reported = false;
    const chunks = [];
    const report = (status, received) => {
      if (reported) return;
      reported = true;
      reporter.apns(token, body, headers, status, received,
        { notificationId, channel, sentAt, apnsId: answer['apns-id'], latencyMs: Date.now() - sentAt.getTime() });
      resolve(status);
    };
    request.on('response', (h) => { answer = h; });
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => report(answer[':status'] ?? 0, answer[':status'] ? Buffer.concat(chunks) : null));
    request.on('error', () => report(0, null));
    request.end(body);
  });
}
// guide:end

// guide:begin node-fcm-http2
/**
 * Sends one FCM HTTP v1 message on an HTTP/2 session (http2.connect('https://fcm.googleapis.com')) and
 * reports the attempt. `auth` is the OAuth header, kept out of the report.
 */
export function pushFCM(session, reporter, { projectId, message, auth, notificationId, channel }) {
  const sentAt = new Date();
  return new Promise((resolve) => {
    const request = session.request({ ':method': 'POST', ':path': `/v1/projects/${projectId}/messages:send`,
      'content-type': 'application/json', ...auth });
    let status = 0;
    const chunks = [];
    request.on('response', (h) => { status = h[':status']; });
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('close', () => {
      reporter.fcm(message, status, status ? Buffer.concat(chunks) : null, { notificationId, channel, sentAt });
      resolve(status);
    });
    request.end(JSON.stringify({ message }));
  });
}
// guide:end
