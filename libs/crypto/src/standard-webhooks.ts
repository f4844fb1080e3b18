import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks (https://www.standardwebhooks.com): the signer used by the sandbox and by our own
 * deliveries, and the verifier of the upstream receiver. Signatures are the official `standardwebhooks`
 * package's public `sign` (HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}` with the secret's
 * base64 key, `v1,<base64>`). Verifying does what the package's `verify` does, with that same `sign`: an
 * entry of the signature header passes when it is exactly that text (no other encoding of the same bytes
 * passes). Around it, this module adds what the package's one-secret `verify` cannot: several secrets on
 * both sides (rotation), typed failure reasons, and a tolerance and clock the caller may set (the package
 * fixes 300 s against the wall clock; ours defaults to the same, and then accepts exactly what the package
 * accepts). Kept whole: the signer and the verifier must read secrets and headers exactly alike.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

export type WebhookVerificationReason =
  | 'MISSING_HEADER'
  | 'INVALID_TIMESTAMP'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_TOO_NEW'
  | 'NO_MATCHING_SIGNATURE';

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
    /** The header at fault, for MISSING_HEADER. */
    readonly header?: string,
  ) {
    super(message);
  }
}

export type WebhookBody = string | Buffer | Uint8Array;

/** Header bags as Node (`IncomingHttpHeaders`), fetch (`Headers`) and plain objects carry them. */
export type WebhookHeaderSource =
  Headers | Record<string, string | readonly string[] | number | undefined | null>;

// A type, not an interface, so it stays assignable to the header bags verifyWebhook reads.
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in either direction. Default 300 s. */
  toleranceSeconds?: number;
  /** Now, in seconds; defaults to the wall clock. */
  nowSeconds?: number;
}

export interface VerifiedWebhook {
  id: string;
  /** The timestamp header, in seconds. */
  timestamp: number;
}

/** A new secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** The HMAC key a secret stands for; the `whsec_` prefix is optional, as in the reference libraries. */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 === 1) {
    throw new Error('A webhook secret must be base64, optionally prefixed with whsec_');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('A webhook secret must not be empty');
  return key;
}

/** Signers by secret: decoding a secret is cheap, but the receiver verifies every request with the same few. */
const signers = new Map<string, Webhook>();
const MAX_SIGNERS = 256;

function signerFor(secret: string): Webhook {
  let signer = signers.get(secret);
  if (!signer) {
    webhookSecretKey(secret); // our clearer error for a malformed secret
    signer = new Webhook(secret);
    if (signers.size >= MAX_SIGNERS) signers.clear();
    signers.set(secret, signer);
  }
  return signer;
}

function toPayload(body: WebhookBody): string | Buffer {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** One `v1,<base64>` signature entry. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: WebhookBody): string {
  assertTimestamp(timestampSeconds);
  return signerFor(secret).sign(id, new Date(timestampSeconds * 1000), toPayload(body));
}

/** The three headers of a delivery, signed with every given secret (several during a rotation). */
export function webhookHeaders(input: {
  id: string;
  timestampSeconds: number;
  body: WebhookBody;
  secrets: string | readonly string[];
}): WebhookHeaders {
  const secrets = typeof input.secrets === 'string' ? [input.secrets] : input.secrets;
  if (secrets.length === 0) throw new Error('Signing a webhook needs at least one secret');
  return {
    [WEBHOOK_ID_HEADER]: input.id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(input.timestampSeconds),
    [WEBHOOK_SIGNATURE_HEADER]: secrets
      .map((s) => signWebhook(s, input.id, input.timestampSeconds, input.body))
      .join(' '),
  };
}

function assertTimestamp(timestampSeconds: number): void {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('A webhook timestamp is a non-negative integer number of seconds');
  }
}

/** The value as the package would read it from a plain object: the last key matching in any case. */
function readHeader(headers: WebhookHeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const bag = headers as Record<string, string | readonly string[] | number | undefined | null>;
  const key = Object.keys(bag)
    .filter((k) => k.toLowerCase() === name)
    .pop();
  const value = key === undefined ? undefined : bag[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return value[0];
}

/** Present and not empty, as the package requires; not trimmed, as the package does not trim. */
function required(headers: WebhookHeaderSource, name: string): string {
  const value = readHeader(headers, name);
  if (!value) throw new WebhookVerificationError('MISSING_HEADER', `Missing header ${name}`, name);
  return value;
}

/**
 * The package's reading of the timestamp (`parseInt`: its leading digits, so `1614265330abc` is
 * 1614265330, and that number is what the signature covers), checked against our tolerance and clock.
 */
function checkedTimestamp(text: string, toleranceSeconds: number, nowSeconds: number): number {
  const timestamp = Number.parseInt(text, 10);
  if (Number.isNaN(timestamp)) {
    throw new WebhookVerificationError('INVALID_TIMESTAMP', 'webhook-timestamp is not a number of seconds');
  }
  if (nowSeconds - timestamp > toleranceSeconds) {
    throw new WebhookVerificationError('TIMESTAMP_TOO_OLD', 'webhook-timestamp is too old');
  }
  if (timestamp > nowSeconds + toleranceSeconds) {
    throw new WebhookVerificationError('TIMESTAMP_TOO_NEW', 'webhook-timestamp is too far in the future');
  }
  return timestamp;
}

/**
 * The `v1` signature values of a signature header, read as the package's `verify` reads them: entries
 * separated by single spaces, nothing trimmed, the version the text before the first comma and the value
 * the text between the first and the second comma (so `v1,<sig>,more` carries `<sig>`).
 */
function v1Signatures(header: string): string[] {
  const values: string[] = [];
  for (const entry of header.split(' ')) {
    const [version, value] = entry.split(',');
    if (version === 'v1' && value !== undefined) values.push(value);
  }
  return values;
}

/** Byte-for-byte, in time independent of where they differ. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks a delivery: all three headers present, the timestamp within tolerance of now (both ways, so a
 * replayed or pre-dated message fails), and one of the `v1` signatures matching one of the secrets. The
 * match is the package's own: its public `sign` computes the canonical `v1,<base64>` and an entry's value
 * must equal it as exact text, which is all the package's `verify` does after its fixed 300 s window.
 * Throws WebhookVerificationError with a typed reason; returns the id and timestamp on success.
 */
export function verifyWebhook(
  body: WebhookBody,
  headers: WebhookHeaderSource,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): VerifiedWebhook {
  const id = required(headers, WEBHOOK_ID_HEADER);
  const timestampText = required(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatureHeader = required(headers, WEBHOOK_SIGNATURE_HEADER);
  const timestamp = checkedTimestamp(
    timestampText,
    options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
    options.nowSeconds ?? Math.floor(Date.now() / 1000),
  );

  const received = v1Signatures(signatureHeader);
  if (received.length > 0) {
    const payload = toPayload(body);
    const signedAt = new Date(timestamp * 1000);
    for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
      let signer: Webhook;
      try {
        signer = signerFor(secret);
      } catch {
        // A malformed secret (stored from a sender that minted one) matches nothing; it must not stop the
        // other secrets from verifying.
        continue;
      }
      const expected = signer.sign(id, signedAt, payload).slice('v1,'.length);
      if (received.some((value) => sameText(value, expected))) return { id, timestamp };
    }
  }
  throw new WebhookVerificationError('NO_MATCHING_SIGNATURE', 'No signature matches the webhook secret');
}

/** The same functions bound to a set of secrets (the first one signs; all of them verify). */
export class StandardWebhook {
  private readonly secrets: readonly string[];

  constructor(
    secrets: string | readonly string[],
    private readonly options: { toleranceSeconds?: number } = {},
  ) {
    this.secrets = typeof secrets === 'string' ? [secrets] : [...secrets];
    if (this.secrets.length === 0) throw new Error('StandardWebhook needs at least one secret');
    // Fail at construction, not at the first delivery, when a secret is malformed.
    for (const secret of this.secrets) webhookSecretKey(secret);
  }

  sign(id: string, timestampSeconds: number, body: WebhookBody): string {
    return signWebhook(this.secrets[0], id, timestampSeconds, body);
  }

  headers(id: string, timestampSeconds: number, body: WebhookBody): WebhookHeaders {
    return webhookHeaders({ id, timestampSeconds, body, secrets: [this.secrets[0]] });
  }

  verify(body: WebhookBody, headers: WebhookHeaderSource, nowSeconds?: number): VerifiedWebhook {
    return verifyWebhook(body, headers, this.secrets, { ...this.options, nowSeconds });
  }
}
