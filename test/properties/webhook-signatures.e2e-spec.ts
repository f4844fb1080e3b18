import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '#libs/crypto';
import { assertProperty, propertyTimeout } from '../kit/index.js';

/**
 * Issue 24, defect 5, as an invariant: for any payload, secrets, timestamp and any re-encoding or mutation
 * of the signature header, our Standard Webhooks verifier accepts a delivery exactly when the official
 * `standardwebhooks` package's `Webhook.verify` accepts it (with any one of our secrets, when we hold
 * several). The clock is frozen, so the tolerance's edges are compared exactly, not raced.
 */

const NOW_SECONDS = 1_780_000_000;

/** Any secret the package can build a key from: raw bytes, base64, with or without the whsec_ prefix. */
const secretArb = fc
  .record({ key: fc.uint8Array({ minLength: 1, maxLength: 48 }), prefixed: fc.boolean() })
  .map(({ key, prefixed }) => (prefixed ? 'whsec_' : '') + Buffer.from(key).toString('base64'));

const payloadArb = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.json(),
  // Raw bytes, not always UTF-8: both sides read a Buffer as UTF-8 text.
  fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes)),
);

const idArb = fc.oneof(
  fc.stringMatching(/^msg_[A-Za-z0-9]{1,30}$/),
  fc.uuid(),
  fc.string({ minLength: 1, maxLength: 40 }),
);

/** Seconds from now: mostly inside the 300 s window, and its exact edges. */
const offsetArb = fc.oneof(
  fc.integer({ min: -299, max: 299 }),
  fc.constantFrom(-301, -300, 300, 301),
  fc.integer({ min: -100_000, max: 100_000 }),
);

/** How the timestamp header is written: canonically, or as text whose leading digits are the number. */
const writer = (name: string, write: (t: number) => string) =>
  Object.assign((t: number) => write(t), { [fc.toStringMethod]: () => name });
const timestampTextArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant(writer('digits', (t) => String(t))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      writer('junk after', (t) => `${t}abc`),
      writer('plus sign', (t) => `+${t}`),
      writer('leading space', (t) => ` ${t}`),
      writer('decimals', (t) => `${t}.9`),
      writer('leading zero', (t) => `0${t}`),
      writer('exponent', (t) => `${t}e3`),
      writer('hex', (t) => `0x${t.toString(16)}`),
      writer('a word', () => 'soon'),
      writer('empty', () => ''),
    ),
  },
);

const b64 = fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => Buffer.from(b).toString('base64'));

/** One re-encoding or mutation of the whole header or of its signature value, named for the report. */
interface Mutation {
  (header: string, context: { other: string }): string;
}
const named = (name: string, mutate: (header: string, context: { other: string }) => string): Mutation =>
  Object.assign((h: string, c: { other: string }) => mutate(h, c), { [fc.toStringMethod]: () => name });
const valueOf = (header: string) => header.slice(header.indexOf(',') + 1);
const onValue = (name: string, f: (value: string) => string) => named(name, (h) => `v1,${f(valueOf(h))}`);

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom<Mutation>(
    onValue('unpadded', (v) => v.replace(/=+$/, '')),
    onValue('base64url', (v) => v.replace(/\+/g, '-').replace(/\//g, '_')),
    onValue('base64url unpadded', (v) => v.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')),
    onValue('hex', (v) => Buffer.from(v, 'base64').toString('hex')),
    onValue('lower case', (v) => v.toLowerCase()),
    onValue('last character cut', (v) => v.slice(0, -1)),
    onValue('extra padding', (v) => `${v}=`),
    onValue('newline after', (v) => `${v}\n`),
    onValue('space before value', (v) => ` ${v}`),
    onValue('spaces inside', (v) => v.replace(/(.{4})/g, '$1 ').trim()),
    named('version v2', (h) => h.replace(/^v1,/, 'v2,')),
    named('version V1', (h) => h.replace(/^v1,/, 'V1,')),
    named('version v1a', (h) => h.replace(/^v1,/, 'v1a,')),
    named('semicolon', (h) => h.replace(/^v1,/, 'v1;')),
    named('v1=,', (h) => h.replace(/^v1,/, 'v1=,')),
    named('no version', (h) => h.replace(/^v1,/, '')),
    named('third field', (h) => `${h},extra`),
    named('empty field', (h) => `v1,,${valueOf(h)}`),
    named('leading spaces', (h) => `  ${h}`),
    named('trailing spaces', (h) => `${h}  `),
    named('trailing tab', (h) => `${h}\t`),
    named('double spaces', (h) => h.replace(/ /g, '  ')),
    named('comma-space separated', (h) => h.replace(/ /g, ', ')),
    named('header repeated (Node joins with ", ")', (h) => `${h}, ${h}`),
    named("a stranger's signature first", (h, { other }) => `${other} ${h}`),
    named("a stranger's signature after", (h, { other }) => `${h} ${other}`),
    named("a stranger's signature, comma-joined", (h, { other }) => `${other},${h}`),
    named('twice', (h) => `${h} ${h}`),
  ),
  fc
    .string({ minLength: 1, maxLength: 6 })
    .map((junk) => named(`trailing junk ${JSON.stringify(junk)}`, (h) => `${h}${junk}`)),
  fc
    .string({ minLength: 1, maxLength: 6 })
    .map((junk) => onValue(`junk after the value ${JSON.stringify(junk)}`, (v) => `${v}${junk}`)),
  b64.map((sig) => named(`random signature ${sig} first`, (h) => `v1,${sig} ${h}`)),
  fc.string({ maxLength: 30 }).map((junk) => named(`replaced by ${JSON.stringify(junk)}`, () => junk)),
);

/** The delivery headers, occasionally with one missing or empty. */
const headerShapeArb = fc.constantFrom(
  'all',
  'all',
  'all',
  'all',
  'no-id',
  'empty-signature',
  'no-timestamp',
);

function packageAccepts(secret: string, payload: string | Buffer, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(payload, headers, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
}

function oursAccepts(
  secrets: string[],
  payload: string | Buffer,
  headers: Record<string, string>,
  options?: { nowSeconds: number; toleranceSeconds: number },
): boolean {
  try {
    verifyWebhook(payload, headers, secrets, options);
    return true;
  } catch (error) {
    // A refusal is always typed: the receiver maps it to 401, never to a 500.
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return false;
  }
}

describe('property: our webhook verifier accepts exactly what the official standardwebhooks package accepts', () => {
  beforeAll(() => {
    // The package reads Date.now(): frozen, both sides see the same second.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW_SECONDS * 1000 + 400);
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it(
    'for generated payloads, secrets, timestamps and re-encodings of the signature header',
    async () => {
      await assertProperty(
        fc.property(
          fc.array(secretArb, { minLength: 1, maxLength: 3 }),
          fc.oneof(fc.nat({ max: 2 }), fc.constant(-1)),
          secretArb,
          idArb,
          payloadArb,
          offsetArb,
          timestampTextArb,
          fc.array(mutationArb, { maxLength: 3 }),
          headerShapeArb,
          (secrets, signerIndex, stranger, id, payload, offset, writeTimestamp, mutations, shape) => {
            // Signed by one of our secrets, or by a stranger's.
            const signer = secrets[signerIndex] ?? stranger;
            const timestamp = NOW_SECONDS + offset;
            const timestampText = writeTimestamp(timestamp);
            // What a sender writing this header would sign: the number the header's leading digits say.
            const signedAt = Number.parseInt(timestampText, 10);
            const at = new Date((Number.isNaN(signedAt) ? timestamp : signedAt) * 1000);
            const canonical = new Webhook(signer).sign(id, at, payload);
            const other = new Webhook(stranger).sign(id, at, payload);
            const signature = mutations.reduce((h, mutate) => mutate(h, { other }), canonical);
            const headers: Record<string, string> = {
              'webhook-id': id,
              'webhook-timestamp': timestampText,
              'webhook-signature': signature,
            };
            if (shape === 'no-id') delete headers['webhook-id'];
            if (shape === 'no-timestamp') delete headers['webhook-timestamp'];
            if (shape === 'empty-signature') headers['webhook-signature'] = '';

            const expected = secrets.some((s) => packageAccepts(s, payload, headers));
            expect(oursAccepts(secrets, payload, headers)).toBe(expected);
            // The same with the clock and tolerance given explicitly, as the receiver gives them.
            const explicit = { nowSeconds: NOW_SECONDS, toleranceSeconds: 300 };
            expect(oursAccepts(secrets, payload, headers, explicit)).toBe(expected);
          },
        ),
        1_500,
      );
    },
    propertyTimeout(60_000),
  );

  it(
    'refuses every signature the package refuses when the only change is the signature header',
    async () => {
      // The sharper form of the invariant for the defect as reported: the timestamp and body are right,
      // so only the header's encoding decides.
      await assertProperty(
        fc.property(
          secretArb,
          idArb,
          payloadArb,
          fc.array(mutationArb, { minLength: 1, maxLength: 2 }),
          (secret, id, payload, mutations) => {
            const at = new Date(NOW_SECONDS * 1000);
            const canonical = new Webhook(secret).sign(id, at, payload);
            const signature = mutations.reduce((h, mutate) => mutate(h, { other: 'v1,AAAA' }), canonical);
            const headers = {
              'webhook-id': id,
              'webhook-timestamp': String(NOW_SECONDS),
              'webhook-signature': signature,
            };
            expect(oursAccepts([secret], payload, headers)).toBe(packageAccepts(secret, payload, headers));
          },
        ),
        1_500,
      );
    },
    propertyTimeout(60_000),
  );
});
