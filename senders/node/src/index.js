// Report every APNs and FCM attempt to PushLedger in one call (POST /v1/sends).
export { Reporter } from './reporter.js';
export { ReportError, MAX_RESPONSE_BODY_BYTES } from './fields.js';
