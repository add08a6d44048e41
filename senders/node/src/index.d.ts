// Types of @pushledger/sender (the code is plain JavaScript with JSDoc).

/** Options of one report; every field optional. */
export interface ReportOptions {
  /** The UUID the app reports receipts with; absent: the payload's `notification_id`. */
  notificationId?: string | null;
  /** The notification's channel; absent: the payload's, else the reporter's default channel. */
  channel?: string | null;
  campaign?: string | null;
  /** When the request was made (default: now). */
  sentAt?: Date | null;
  installationId?: string | null;
  latencyMs?: number | null;
}

export interface APNsReportOptions extends ReportOptions {
  /** The answer's `apns-id` header (default: the request's). */
  apnsId?: string | null;
  /** `production` or `development`, when the sender knows which APNs it used. */
  environment?: string | null;
}

/** A body as the provider returned it: text, bytes, or parsed JSON. */
export type AnswerBody = string | Uint8Array | object | null;

/** A report that cannot become a send (returned, never thrown); `message` never holds a token or a key. */
export class ReportError extends Error {
  code: 'missing_field' | 'invalid_field' | 'closed';
  field: string | null;
}

export interface ReporterOptions {
  defaultChannel?: string;
  batchSize?: number;
  flushIntervalMs?: number;
  maxQueue?: number;
  timeoutMs?: number;
  closeTimeoutMs?: number;
  logger?: { warn(message: string): void } | null;
}

export interface ReporterStats {
  reported: number; accepted: number; duplicates: number; rejected: number; invalid: number;
  dropped: number; retries: number; unauthorized: number; queued: number;
}

export class Reporter {
  constructor(url: string, key: string, appId: string, options?: ReporterOptions);
  apns(token: string, payload: object | string, headers: Record<string, string | number> | null, status: number,
       body?: AnswerBody, options?: APNsReportOptions): ReportError | null;
  fcm(message: object | string, status: number, body?: AnswerBody, options?: ReportOptions): ReportError | null;
  /**
   * One Web Push request: the subscription endpoint (https://), the request's headers (TTL, Topic, Urgency
   * read), the push service's status (0: no answer) and body. `notificationId` is required here.
   */
  webpush(endpoint: string, headers: Record<string, string | number> | Map<string, string> | Headers | null,
          status: number, body?: AnswerBody, options?: ReportOptions): ReportError | null;
  flush(timeoutMs?: number): Promise<boolean>;
  close(timeoutMs?: number): Promise<boolean>;
  setKey(key: string): void;
  stats(): ReporterStats;
}

export const MAX_RESPONSE_BODY_BYTES: 4096;
