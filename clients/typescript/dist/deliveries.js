/**
 * Is this delivery from Switchboard? Standard Webhooks signatures, checked by
 * the `standardwebhooks` package, with the previous secret's grace: after the
 * endpoint is set again, each delivery is signed with the new secret and the
 * previous one for a while, so either verifies it.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
export { WebhookVerificationError };
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
export function verifyDelivery(headers, body, secret, previousSecret) {
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
            return new Webhook(each).verify(payload, plain);
        }
        catch (error) {
            failure = error;
        }
    }
    throw failure;
}
