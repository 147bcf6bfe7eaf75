/**
 * Typed errors: every answer of 400 or more becomes a `SwitchboardError`
 * carrying the API's `{"error": {"code", "message", "field"?}}`.
 */
import { retryAfterSeconds } from './retry.js';
export class SwitchboardError extends Error {
    status;
    /** The API's error code: `invalid`, `not_found`, `invalid_cursor`, … */
    code;
    /** The field to blame, when one is. */
    field;
    /** Seconds the API asked to wait (`Retry-After`), when it did. */
    retryAfter;
    constructor(status, code, message, field, retryAfter) {
        super(`${status} ${code}: ${message}`);
        this.name = new.target.name;
        this.status = status;
        this.code = code;
        this.field = field;
        this.retryAfter = retryAfter;
    }
}
/** 400: the body is not JSON, or not an object (`malformed`). */
export class BadRequest extends SwitchboardError {
}
/** 401: no valid API key. */
export class Unauthorized extends SwitchboardError {
}
/** 403: authenticated, but not allowed. */
export class Forbidden extends SwitchboardError {
}
/** 404: no such object for this host. */
export class NotFound extends SwitchboardError {
}
/** 409: in conflict with the object's current state. */
export class Conflict extends SwitchboardError {
}
/** 422: valid JSON with an invalid value; `field` names it. */
export class Invalid extends SwitchboardError {
}
/** 429 still, after the retries. */
export class RateLimited extends SwitchboardError {
}
/** 503 still, after the retries. */
export class Unavailable extends SwitchboardError {
}
const BY_STATUS = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: Invalid,
    429: RateLimited,
    503: Unavailable,
};
/** The typed error for an answer of 400 or more, from its parsed (or text) body. */
export function errorFrom(body, response) {
    let code = 'error';
    let message = typeof body === 'string' && body ? body.slice(0, 500) : response.statusText;
    let field;
    const error = body?.error;
    if (error && typeof error === 'object') {
        const e = error;
        if (typeof e.code === 'string')
            code = e.code;
        if (typeof e.message === 'string')
            message = e.message;
        if (typeof e.field === 'string')
            field = e.field;
    }
    const Kind = BY_STATUS[response.status] ?? SwitchboardError;
    return new Kind(response.status, code, message, field, retryAfterSeconds(response.headers.get('Retry-After')));
}
