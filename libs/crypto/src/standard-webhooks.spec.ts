import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import {
  generateWebhookSecret,
  signWebhook,
  StandardWebhook,
  verifyWebhook,
  webhookHeaders,
  webhookSecretKey,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './standard-webhooks.js';

// The official Standard Webhooks test vector.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

const headers = (signature = SIGNATURE, timestamp = String(TIMESTAMP)) => ({
  'webhook-id': ID,
  'webhook-timestamp': timestamp,
  'webhook-signature': signature,
});

function reasonOf(fn: () => unknown): WebhookVerificationReason | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('Standard Webhooks signing', () => {
  it('reproduces the official test vector', () => {
    expect(signWebhook(SECRET, ID, TIMESTAMP, BODY)).toBe(SIGNATURE);
    expect(signWebhook(SECRET, ID, TIMESTAMP, Buffer.from(BODY))).toBe(SIGNATURE);
    // The prefix is optional, as in the reference libraries.
    expect(signWebhook(SECRET.slice('whsec_'.length), ID, TIMESTAMP, BODY)).toBe(SIGNATURE);
    expect(webhookHeaders({ id: ID, timestampSeconds: TIMESTAMP, body: BODY, secrets: SECRET })).toEqual(
      headers(),
    );
  });

  it('verifies the test vector from string, Buffer, Headers and Node header bags', () => {
    const now = { nowSeconds: TIMESTAMP };
    expect(verifyWebhook(BODY, headers(), SECRET, now)).toEqual({ id: ID, timestamp: TIMESTAMP });
    expect(verifyWebhook(Buffer.from(BODY), new Headers(headers()), SECRET, now).id).toBe(ID);
    const nodeBag = {
      'Webhook-Id': [ID],
      'webhook-timestamp': String(TIMESTAMP),
      'webhook-signature': SIGNATURE,
    };
    expect(verifyWebhook(BODY, nodeBag, SECRET, now).timestamp).toBe(TIMESTAMP);
  });

  it('refuses a tampered body, a wrong secret, and a tampered id or timestamp', () => {
    const now = { nowSeconds: TIMESTAMP };
    expect(reasonOf(() => verifyWebhook('{"test": 2432232315}', headers(), SECRET, now))).toBe(
      'NO_MATCHING_SIGNATURE',
    );
    expect(reasonOf(() => verifyWebhook(BODY, headers(), generateWebhookSecret(), now))).toBe(
      'NO_MATCHING_SIGNATURE',
    );
    expect(
      reasonOf(() => verifyWebhook(BODY, { ...headers(), 'webhook-id': 'msg_other' }, SECRET, now)),
    ).toBe('NO_MATCHING_SIGNATURE');
    const later = String(TIMESTAMP + 1);
    expect(reasonOf(() => verifyWebhook(BODY, headers(SIGNATURE, later), SECRET, now))).toBe(
      'NO_MATCHING_SIGNATURE',
    );
  });

  it('accepts any of several secrets, so a secret can rotate', () => {
    const next = generateWebhookSecret();
    const now = { nowSeconds: TIMESTAMP };
    expect(verifyWebhook(BODY, headers(), [next, SECRET], now).id).toBe(ID);
    const signedWithNext = webhookHeaders({ id: ID, timestampSeconds: TIMESTAMP, body: BODY, secrets: next });
    expect(verifyWebhook(BODY, signedWithNext, [SECRET, next], now).id).toBe(ID);
    expect(reasonOf(() => verifyWebhook(BODY, signedWithNext, [SECRET], now))).toBe('NO_MATCHING_SIGNATURE');
  });

  it('accepts a header with several signatures when any one matches, ignoring unknown versions', () => {
    const other = signWebhook(generateWebhookSecret(), ID, TIMESTAMP, BODY);
    const header = `v1a,AAAA ${other} ${SIGNATURE}`;
    expect(verifyWebhook(BODY, headers(header), SECRET, { nowSeconds: TIMESTAMP }).id).toBe(ID);
    const dual = webhookHeaders({
      id: ID,
      timestampSeconds: TIMESTAMP,
      body: BODY,
      secrets: [generateWebhookSecret(), SECRET],
    });
    expect(dual['webhook-signature'].split(' ')).toHaveLength(2);
    expect(dual['webhook-signature'].split(' ')[1]).toBe(SIGNATURE);
    expect(verifyWebhook(BODY, dual, SECRET, { nowSeconds: TIMESTAMP }).id).toBe(ID);
    expect(
      reasonOf(() =>
        verifyWebhook(BODY, headers(`${other} v2,${SIGNATURE.slice(3)}`), SECRET, {
          nowSeconds: TIMESTAMP,
        }),
      ),
    ).toBe('NO_MATCHING_SIGNATURE');
  });

  it('refuses stale and future timestamps beyond the tolerance, in both directions', () => {
    const at = (nowSeconds: number, toleranceSeconds?: number) =>
      reasonOf(() => verifyWebhook(BODY, headers(), SECRET, { nowSeconds, toleranceSeconds }));
    expect(at(TIMESTAMP + 300)).toBeUndefined();
    expect(at(TIMESTAMP + 301)).toBe('TIMESTAMP_TOO_OLD');
    expect(at(TIMESTAMP - 300)).toBeUndefined();
    expect(at(TIMESTAMP - 301)).toBe('TIMESTAMP_TOO_NEW');
    expect(at(TIMESTAMP + 3600, 3600)).toBeUndefined();
    expect(at(TIMESTAMP + 11, 10)).toBe('TIMESTAMP_TOO_OLD');
    // Wall clock by default: the 2021 vector is long stale.
    expect(reasonOf(() => verifyWebhook(BODY, headers(), SECRET))).toBe('TIMESTAMP_TOO_OLD');
  });

  it('names the missing header and refuses a malformed timestamp', () => {
    const now = { nowSeconds: TIMESTAMP };
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const partial: Record<string, string> = headers();
      delete partial[name];
      try {
        verifyWebhook(BODY, partial, SECRET, now);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect((error as WebhookVerificationError).reason).toBe('MISSING_HEADER');
        expect((error as WebhookVerificationError).header).toBe(name);
      }
    }
    for (const text of ['soon', '', ' ', 'e3', '-', '.5']) {
      const partial = { ...headers(), 'webhook-timestamp': text };
      expect([text, reasonOf(() => verifyWebhook(BODY, partial, SECRET, now))]).toEqual([
        text,
        text === '' ? 'MISSING_HEADER' : 'INVALID_TIMESTAMP',
      ]);
    }
    // The package reads the leading digits (parseInt), and the signature covers that number.
    expect(reasonOf(() => verifyWebhook(BODY, headers(SIGNATURE, '16142653e0'), SECRET, now))).toBe(
      'TIMESTAMP_TOO_OLD',
    );
    expect(reasonOf(() => verifyWebhook(BODY, headers(SIGNATURE, '-1'), SECRET, now))).toBe(
      'TIMESTAMP_TOO_OLD',
    );
    expect(verifyWebhook(BODY, headers(SIGNATURE, `${TIMESTAMP}abc`), SECRET, now).timestamp).toBe(TIMESTAMP);
  });

  it('refuses every other encoding of the right signature, and accepts what the package accepts', () => {
    const now = { nowSeconds: TIMESTAMP };
    const value = SIGNATURE.slice('v1,'.length);
    const url = value.replace(/\+/g, '-').replace(/\//g, '_');
    const theirs = (signature: string) => {
      // The package reads the wall clock: set to the vector's second for the comparison.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(TIMESTAMP * 1000);
      try {
        new Webhook(SECRET).verify(BODY, headers(signature), { jsonParse: false });
        return 'accepted';
      } catch {
        return 'refused';
      } finally {
        vi.useRealTimers();
      }
    };
    const ours = (signature: string) =>
      reasonOf(() => verifyWebhook(BODY, headers(signature), SECRET, now)) ?? 'accepted';
    const refused = [
      `v1,${value.replace(/=+$/, '')}`,
      `v1,${url}`,
      `v1,${url.replace(/=+$/, '')}`,
      `${SIGNATURE}x`,
      `${SIGNATURE}==`,
      `${SIGNATURE}\t`,
      `v1, ${value}`,
      `v1,,${value}`,
      `V1,${value}`,
      `v1;${value}`,
      `v1,${Buffer.from(value, 'base64').toString('hex')}`,
      `v1,${value.toLowerCase()}`,
    ];
    for (const signature of refused) {
      expect([signature, ours(signature), theirs(signature)]).toEqual([
        signature,
        'NO_MATCHING_SIGNATURE',
        'refused',
      ]);
    }
    // The package splits entries on spaces and each entry on commas, reading the first two fields: empty
    // entries and extra fields do not matter to it, so not to us either (a header sent twice, which Node
    // joins with ", ", still verifies).
    const accepted = [
      `  ${SIGNATURE}  v2,x `,
      `${SIGNATURE},`,
      `${SIGNATURE},extra`,
      `v9,x ${SIGNATURE}`,
      `${SIGNATURE}, ${SIGNATURE}`,
    ];
    for (const signature of accepted) {
      expect([signature, ours(signature), theirs(signature)]).toEqual([signature, 'accepted', 'accepted']);
    }
  });

  it('generates whsec_ secrets of 24 random bytes', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(webhookSecretKey(a)).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(a);
    expect(() => webhookSecretKey('whsec_')).toThrow();
    expect(() => webhookSecretKey('whsec_not base64!')).toThrow();
  });

  it('binds secrets in a StandardWebhook', () => {
    const next = generateWebhookSecret();
    const signer = new StandardWebhook(next);
    const signed = signer.headers(ID, TIMESTAMP, BODY);
    expect(new StandardWebhook([SECRET, next]).verify(BODY, signed, TIMESTAMP).id).toBe(ID);
    expect(signer.sign(ID, TIMESTAMP, BODY)).toBe(signed['webhook-signature']);
    expect(() => new StandardWebhook([])).toThrow();
    expect(() => new StandardWebhook('whsec_!!')).toThrow();
    const strict = new StandardWebhook(SECRET, { toleranceSeconds: 5 });
    expect(reasonOf(() => strict.verify(BODY, headers(), TIMESTAMP + 6))).toBe('TIMESTAMP_TOO_OLD');
  });
});

describe('interoperability with the official standardwebhooks package', () => {
  it('signs what the package verifies, for each of several secrets, and verifies what it signs', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: 'payment.completed', amount: '12.34' });
    const signed = webhookHeaders({ id: 'evt_1', timestampSeconds: now, body, secrets: [a, b] });
    expect(new Webhook(a).verify(body, signed, { jsonParse: false })).toBeUndefined();
    expect(new Webhook(b).verify(body, signed, { jsonParse: false })).toBeUndefined();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, signed)).toThrow();

    const theirs = new Webhook(b).sign('evt_2', new Date(now * 1000), body);
    const received = { 'webhook-id': 'evt_2', 'webhook-timestamp': String(now), 'webhook-signature': theirs };
    expect(verifyWebhook(body, received, [a, b]).id).toBe('evt_2');
    expect(reasonOf(() => verifyWebhook(body + ' ', received, [a, b]))).toBe('NO_MATCHING_SIGNATURE');
  });

  it('skips a malformed secret among several instead of failing the verification', () => {
    const good = generateWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    const signed = webhookHeaders({ id: 'evt_3', timestampSeconds: now, body: '{}', secrets: [good] });
    expect(verifyWebhook('{}', signed, ['not base64 at all!', good]).id).toBe('evt_3');
    expect(reasonOf(() => verifyWebhook('{}', signed, ['not base64 at all!']))).toBe('NO_MATCHING_SIGNATURE');
  });
});
