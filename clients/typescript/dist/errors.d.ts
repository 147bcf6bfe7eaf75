export declare class SwitchboardError extends Error {
    readonly status: number;
    /** The API's error code: `invalid`, `not_found`, `invalid_cursor`, … */
    readonly code: string;
    /** The field to blame, when one is. */
    readonly field: string | undefined;
    /** Seconds the API asked to wait (`Retry-After`), when it did. */
    readonly retryAfter: number | undefined;
    constructor(status: number, code: string, message: string, field?: string, retryAfter?: number);
}
/** 400: the body is not JSON, or not an object (`malformed`). */
export declare class BadRequest extends SwitchboardError {
}
/** 401: no valid API key. */
export declare class Unauthorized extends SwitchboardError {
}
/** 403: authenticated, but not allowed. */
export declare class Forbidden extends SwitchboardError {
}
/** 404: no such object for this host. */
export declare class NotFound extends SwitchboardError {
}
/** 409: in conflict with the object's current state. */
export declare class Conflict extends SwitchboardError {
}
/** 422: valid JSON with an invalid value; `field` names it. */
export declare class Invalid extends SwitchboardError {
}
/** 429 still, after the retries. */
export declare class RateLimited extends SwitchboardError {
}
/** 503 still, after the retries. */
export declare class Unavailable extends SwitchboardError {
}
/** The typed error for an answer of 400 or more, from its parsed (or text) body. */
export declare function errorFrom(body: unknown, response: Response): SwitchboardError;
