// Report every APNs, FCM and Web Push attempt to PushLedger in one call (POST /v1/sends).
export { Reporter } from './reporter.js';
export { ReportError, MAX_RESPONSE_BODY_BYTES } from './fields.js';
