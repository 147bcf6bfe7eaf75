/**
 * Retries of 429 and 503 that honour `Retry-After`, as a `fetch`, so every
 * call (generated or not) gets them. Other answers, and network errors, are
 * the caller's to handle.
 */
export declare const RETRIED_STATUSES: Set<number>;
/** `Retry-After` as seconds to wait: delta-seconds or an HTTP date; undefined if absent or unreadable. */
export declare function retryAfterSeconds(value: string | null | undefined, now?: number): number | undefined;
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
/** A `fetch` that sends a request again after a 429 or 503, waiting what `Retry-After` asks. */
export declare function retryingFetch(options?: RetryOptions): (request: Request) => Promise<Response>;
