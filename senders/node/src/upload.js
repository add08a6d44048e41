// What the reporter does with each answer to an upload, and how long it waits before the next try:
// the clients' shared rules (Tests/Fixtures/upload-answers.json, retry-delays.json).

/** PushLedger's own 400 codes: only these refuse a request for good (its sends are dropped). */
export const REFUSAL_CODES = new Set(['invalid_json', 'invalid_gzip', 'missing_field', 'invalid_field', 'unstorable']);
export const BASE_DELAY_S = 0.5;
export const MAX_DELAY_S = 30;
export const MAX_RETRY_AFTER_S = 60;
const SECONDS = /^[0-9]+(?:\.[0-9]+)?$/;

/** The answer's JSON object when it is one, sent as JSON; else null. */
export function parseAnswer(contentType, body) {
  if (typeof contentType !== 'string' || contentType.split(';', 1)[0].trim().toLowerCase() !== 'application/json') {
    return null;
  }
  try {
    const value = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The outcome of one upload: stored, refused, split, retry, unauthorized or unexpected.
 * @param {number|null} status null for a network error (no answer)
 */
export function classify(status, contentType, body) {
  if (status === null || status === 429 || (status >= 500 && status <= 599)) return 'retry';
  if (status === 413) return 'split';
  if (status === 401 || status === 403) return 'unauthorized';
  const answer = parseAnswer(contentType, body);
  if (status === 200) return answer !== null && Number.isInteger(answer.accepted) ? 'stored' : 'unexpected';
  if (status === 400) {
    const own = answer !== null && REFUSAL_CODES.has(answer.error) && typeof answer.message === 'string';
    return own ? 'refused' : 'retry';
  }
  return 'unexpected';
}

/**
 * Seconds to wait after failed attempt `attempt` (1-based): a usable Retry-After (non-negative decimal
 * seconds, at most 60), else exponential backoff with equal jitter.
 */
export function retryDelay(attempt, retryAfter, random) {
  const trimmed = typeof retryAfter === 'string' ? retryAfter.trim() : '';
  if (SECONDS.test(trimmed)) return Math.min(Number(trimmed), MAX_RETRY_AFTER_S);
  const exponential = Math.min(MAX_DELAY_S, BASE_DELAY_S * 2 ** Math.min(Math.max(attempt - 1, 0), 20));
  return exponential / 2 + (exponential / 2) * Math.min(Math.max(random, 0), 1);
}
