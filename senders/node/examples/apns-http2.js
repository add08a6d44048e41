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
