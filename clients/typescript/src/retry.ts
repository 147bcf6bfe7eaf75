/**
 * Retries of 429 and 503 that honour `Retry-After`, as a `fetch`, so every
 * call (generated or not) gets them. Other answers, and network errors, are
 * the caller's to handle.
 */

export const RETRIED_STATUSES = new Set([429, 503]);

/** `Retry-After` as seconds to wait: delta-seconds or an HTTP date; undefined if absent or unreadable. */
export function retryAfterSeconds(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

export interface RetryOptions {
  /** How many times a 429 or 503 is sent again (default 3). */
  retries?: number;
  /** Seconds to wait when the answer names no `Retry-After` (default 1). */
  defaultWait?: number;
  /** The longest wait in seconds, whatever `Retry-After` says (default 60). */
  maxWait?: number;
  /** The fetch to wrap (default `globalThis.fetch`). */
  fetch?: typeof fetch;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** A `fetch` that sends a request again after a 429 or 503, waiting what `Retry-After` asks. */
export function retryingFetch(options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const defaultWait = options.defaultWait ?? 1;
  const maxWait = options.maxWait ?? 60;
  const inner = options.fetch ?? globalThis.fetch;
  return async (request: Request) => {
    for (let attempt = 0; ; attempt++) {
      // A request's body can be read once: each attempt sends a copy.
      const response = await inner(request.clone());
      if (!RETRIED_STATUSES.has(response.status) || attempt >= retries) return response;
      const wait = retryAfterSeconds(response.headers.get('Retry-After'));
      await response.body?.cancel();
      await sleep(Math.min(maxWait, wait ?? defaultWait));
    }
  };
}
