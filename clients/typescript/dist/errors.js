"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Unavailable = exports.RateLimited = exports.Invalid = exports.Conflict = exports.NotFound = exports.Forbidden = exports.Unauthorized = exports.BadRequest = exports.SwitchboardError = void 0;
exports.errorFrom = errorFrom;
/**
 * Typed errors: every answer of 400 or more becomes a `SwitchboardError`
 * carrying the API's `{"error": {"code", "message", "field"?}}`.
 */
const retry_js_1 = require("./retry.js");
class SwitchboardError extends Error {
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
exports.SwitchboardError = SwitchboardError;
/** 400: the body is not JSON, or not an object (`malformed`). */
class BadRequest extends SwitchboardError {
}
exports.BadRequest = BadRequest;
/** 401: no valid API key. */
class Unauthorized extends SwitchboardError {
}
exports.Unauthorized = Unauthorized;
/** 403: authenticated, but not allowed. */
class Forbidden extends SwitchboardError {
}
exports.Forbidden = Forbidden;
/** 404: no such object for this host. */
class NotFound extends SwitchboardError {
}
exports.NotFound = NotFound;
/** 409: in conflict with the object's current state. */
class Conflict extends SwitchboardError {
}
exports.Conflict = Conflict;
/** 422: valid JSON with an invalid value; `field` names it. */
class Invalid extends SwitchboardError {
}
exports.Invalid = Invalid;
/** 429 still, after the retries. */
class RateLimited extends SwitchboardError {
}
exports.RateLimited = RateLimited;
/** 503 still, after the retries. */
class Unavailable extends SwitchboardError {
}
exports.Unavailable = Unavailable;
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
function errorFrom(body, response) {
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
    return new Kind(response.status, code, message, field, (0, retry_js_1.retryAfterSeconds)(response.headers.get('Retry-After')));
}
