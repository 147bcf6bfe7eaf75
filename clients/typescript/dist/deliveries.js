"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WebhookVerificationError = void 0;
exports.verifyDelivery = verifyDelivery;
/**
 * Is this delivery from Switchboard? Standard Webhooks signatures, checked by
 * the `standardwebhooks` package, with the previous secret's grace: after the
 * endpoint is set again, each delivery is signed with the new secret and the
 * previous one for a while, so either verifies it.
 */
const standardwebhooks_1 = require("standardwebhooks");
Object.defineProperty(exports, "WebhookVerificationError", { enumerable: true, get: function () { return standardwebhooks_1.WebhookVerificationError; } });
function plainHeaders(headers) {
    const plain = {};
    if (headers instanceof Headers) {
        headers.forEach((value, key) => {
            plain[key.toLowerCase()] = value;
        });
        return plain;
    }
    for (const [key, value] of Object.entries(headers)) {
        if (value !== undefined)
            plain[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    return plain;
}
/**
 * The delivery's parsed body, if any of its signatures is made with `secret`
 * (one `whsec_…` or several) or `previousSecret`; else it throws
 * `WebhookVerificationError` (a bad or missing signature, a stale or future
 * timestamp). `body` is the raw body as received: parsed and serialised again,
 * it no longer matches.
 */
function verifyDelivery(headers, body, secret, previousSecret) {
    const secrets = typeof secret === 'string' ? [secret] : [...secret];
    if (previousSecret)
        secrets.push(previousSecret);
    if (secrets.length === 0)
        throw new Error('verifyDelivery needs at least one secret');
    const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
    const plain = plainHeaders(headers);
    let failure;
    for (const each of secrets) {
        try {
            return new standardwebhooks_1.Webhook(each).verify(payload, plain);
        }
        catch (error) {
            failure = error;
        }
    }
    throw failure;
}
