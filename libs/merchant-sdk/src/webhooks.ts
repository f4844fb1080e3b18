import { Webhook, WebhookVerificationError as StandardWebhooksError } from 'standardwebhooks';
import { type WebhookVerificationCode, WebhookVerificationError } from './errors.js';
import type { BffEvent } from './models.js';

/**
 * Deliveries to a merchant's endpoint are signed with Standard Webhooks (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`). `verifyEvent` checks them with the official `standardwebhooks`
 * package over the body exactly as received, and answers the event.
 */

/**
 * The request's headers in any usual form: a fetch `Headers`, Node's `IncomingHttpHeaders` (Express,
 * Fastify, node:http), or a plain record.
 */
export type WebhookHeaders =
  Headers | Record<string, string | readonly string[] | undefined> | Iterable<readonly [string, string]>;

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Verifies one delivery and answers its event; throws `WebhookVerificationError` on a missing header, a
 * timestamp more than five minutes away (a replay), a signature that no given secret made, or a body
 * that is not an event.
 *
 * @param rawBody the body as received, before any JSON parsing: a parsed and re-serialised body no longer
 *   matches its signature.
 * @param secret the endpoint's `whsec_…` secret; while you switch after a rotation, both.
 */
export function verifyEvent(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
): BffEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const signed = signatureHeaders(headers);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('verifyEvent needs the endpoint secret');
  let refusal: WebhookVerificationError | undefined;
  for (const candidate of secrets) {
    try {
      new Webhook(candidate).verify(body, signed, { jsonParse: false });
    } catch (error) {
      if (!(error instanceof StandardWebhooksError)) throw error;
      refusal = refusalOf(error);
      // A timestamp or a header is wrong whichever the secret: no other can verify it.
      if (refusal.code !== 'INVALID_SIGNATURE') throw refusal;
      continue;
    }
    return asEvent(body);
  }
  throw refusal!;
}

function signatureHeaders(headers: WebhookHeaders): Record<string, string> {
  const found: Record<string, string> = {};
  const entries: Iterable<readonly [string, unknown]> =
    Symbol.iterator in headers ? (headers as Iterable<readonly [string, string]>) : Object.entries(headers);
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (!(SIGNATURE_HEADERS as readonly string[]).includes(key)) continue;
    // Node joins repeated headers into an array; these are sent once, so the first is the one.
    const text = Array.isArray(value) ? (value[0] as unknown) : value;
    if (typeof text === 'string') found[key] = text;
  }
  return found;
}

function refusalOf(error: Error): WebhookVerificationError {
  const code: WebhookVerificationCode =
    error.message === 'Missing required headers'
      ? 'MISSING_HEADERS'
      : /timestamp|Invalid Signature Headers/i.test(error.message)
        ? 'INVALID_TIMESTAMP'
        : 'INVALID_SIGNATURE';
  return new WebhookVerificationError(code, `Webhook refused: ${error.message}`, { cause: error });
}

function asEvent(body: string): BffEvent {
  let event: Partial<BffEvent> | null | undefined;
  try {
    event = JSON.parse(body) as Partial<BffEvent> | null;
  } catch {
    event = undefined;
  }
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof event.id !== 'string' ||
    typeof event.type !== 'string' ||
    typeof event.data !== 'object'
  ) {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'Webhook verified, but its body is not an event');
  }
  return event as BffEvent;
}
