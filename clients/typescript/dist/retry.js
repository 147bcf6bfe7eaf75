/**
 * Retries of 429 and 503 that honour `Retry-After`, as a `fetch`, so every
 * call (generated or not) gets them. Other answers, and network errors, are
 * the caller's to handle.
 */
export const RETRIED_STATUSES = new Set([429, 503]);
/** `Retry-After` as seconds to wait: delta-seconds or an HTTP date; undefined if absent or unreadable. */
export function retryAfterSeconds(value, now = Date.now()) {
    if (!value)
        return undefined;
    const text = value.trim();
    if (/^\d+$/.test(text))
        return Number(text);
    const at = Date.parse(text);
    return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}
const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
/** A `fetch` that sends a request again after a 429 or 503, waiting what `Retry-After` asks. */
export function retryingFetch(options = {}) {
    const retries = options.retries ?? 3;
    const defaultWait = options.defaultWait ?? 1;
    const maxWait = options.maxWait ?? 60;
    const inner = options.fetch ?? globalThis.fetch;
    return async (request) => {
        for (let attempt = 0;; attempt++) {
            // A request's body can be read once: each attempt sends a copy.
            const response = await inner(request.clone());
            if (!RETRIED_STATUSES.has(response.status) || attempt >= retries)
                return response;
            const wait = retryAfterSeconds(response.headers.get('Retry-After'));
            await response.body?.cancel();
            await sleep(Math.min(maxWait, wait ?? defaultWait));
        }
    };
}
