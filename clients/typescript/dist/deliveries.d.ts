/**
 * Is this delivery from Switchboard? Standard Webhooks signatures, checked by
 * the `standardwebhooks` package, with the previous secret's grace: after the
 * endpoint is set again, each delivery is signed with the new secret and the
 * previous one for a while, so either verifies it.
 */
import { WebhookVerificationError } from 'standardwebhooks';
export { WebhookVerificationError };
type HeaderSource = Headers | Record<string, string | string[] | undefined>;
/**
 * The delivery's parsed body, if any of its signatures is made with `secret`
 * (one `whsec_…` or several) or `previousSecret`; else it throws
 * `WebhookVerificationError` (a bad or missing signature, a stale or future
 * timestamp). `body` is the raw body as received: parsed and serialised again,
 * it no longer matches.
 */
export declare function verifyDelivery(headers: HeaderSource, body: string | Uint8Array, secret: string | string[], previousSecret?: string): unknown;
