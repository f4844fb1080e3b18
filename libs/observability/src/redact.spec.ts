import { describe, expect, it } from 'vitest';
import { captureLogger } from '#libs/testing';
import { redact, REDACTED, redactText } from './redact.js';

const SECRETS = {
  consentToken: 'eyJhbGciOiJIUzI1NiJ9.consent-token-value',
  password: 'correct horse battery staple',
  scaCode: '123456',
  apiKey: 'mk_AbCdEf0123456789abcdefXYZ',
  sessionToken: 'us_session0123456789abcdef',
  webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  basic: 'QXBwSWQ6QXBwU2VjcmV0',
};

describe('redact', () => {
  it('replaces secret-named keys at any depth and keeps the rest', () => {
    const input = {
      headers: {
        authorization: `Bearer ${SECRETS.apiKey}`,
        consent: SECRETS.consentToken,
        accept: 'application/json',
      },
      body: { userCredentials: { id: 'psu-1', password: SECRETS.password }, scaCode: SECRETS.scaCode },
      nested: [{ deeper: { consentToken: SECRETS.consentToken, webhookSecret: SECRETS.webhookSecret } }],
      tokenKeyId: 'k1',
      consentId: 'c-123',
    };
    const out = redact(input) as typeof input;
    expect(out.headers.authorization).toBe(REDACTED);
    expect(out.headers.consent).toBe(REDACTED);
    expect(out.headers.accept).toBe('application/json');
    expect(out.body.userCredentials).toBe(REDACTED);
    expect(out.body.scaCode).toBe(REDACTED);
    expect(out.nested[0].deeper).toEqual({ consentToken: REDACTED, webhookSecret: REDACTED });
    expect(out.tokenKeyId).toBe('k1');
    expect(out.consentId).toBe('c-123');
    // The input is not mutated (it may be a live request).
    expect(input.headers.authorization).toContain(SECRETS.apiKey);
  });

  it('redacts the PSU headers, however spelled: a user’s bank login ids and address', () => {
    const out = redact({
      headers: { 'psu-id': 'alice-at-bank', 'psu-corporate-id': 'acme', 'psu-ip-address': '203.0.113.7' },
      psu: { id: 'alice-at-bank', ipAddress: '203.0.113.7' },
      psuCorporateId: 'acme',
      institutionId: 'sandbox-psu-business',
    }) as Record<string, any>;
    expect(out.headers).toEqual({
      'psu-id': REDACTED,
      'psu-corporate-id': REDACTED,
      'psu-ip-address': REDACTED,
    });
    expect([out.psu, out.psuCorporateId, out.institutionId]).toEqual([
      REDACTED,
      REDACTED,
      'sandbox-psu-business',
    ]);
  });

  it('redacts an all-digit one-time code under `code` but keeps error codes', () => {
    expect(redact({ code: '123456' })).toEqual({ code: REDACTED });
    expect(redact({ code: 'VALIDATION_FAILED', error: { code: 424 } })).toEqual({
      code: 'VALIDATION_FAILED',
      error: { code: 424 },
    });
  });

  it('scrubs secrets inside free text: bearer and basic credentials, key prefixes, secret query parameters', () => {
    const text = redactText(
      `Authorization: Bearer ${SECRETS.apiKey} and Basic ${SECRETS.basic}; session ${SECRETS.sessionToken}; ` +
        `https://bff/v1/callbacks/consents?oneTimeToken=abc.def&state=xyz&consentId=c1 secret ${SECRETS.webhookSecret}`,
    );
    for (const secret of [
      SECRETS.apiKey,
      SECRETS.basic,
      SECRETS.sessionToken,
      'abc.def',
      'xyz',
      SECRETS.webhookSecret,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('consentId=c1');
  });

  it('survives cycles and very deep objects', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(redact(a)).toEqual({ name: 'a', self: '[Circular]' });
    let deep: Record<string, unknown> = { password: 'p' };
    for (let i = 0; i < 20; i += 1) deep = { next: deep };
    expect(JSON.stringify(redact(deep))).not.toContain('"p"');
  });
});

describe('the logger', () => {
  it('never writes a secret, whether logged as a field, inside an error, or in the message', () => {
    const { logger, text } = captureLogger();
    logger.info(
      { req: { headers: { authorization: `Basic ${SECRETS.basic}` } }, consent: SECRETS.consentToken },
      'upstream call',
    );
    logger.warn(
      { credentials: { id: 'u', password: SECRETS.password }, scaCode: SECRETS.scaCode },
      'embedded flow',
    );
    logger.error(
      { err: new Error(`upstream rejected consent ${SECRETS.consentToken} for Bearer ${SECRETS.apiKey}`) },
      'failed',
    );
    logger.info(
      `callback https://bff/cb?oneTimeToken=${SECRETS.consentToken}&state=s1 with ${SECRETS.sessionToken}`,
    );
    logger.info({ webhook: { webhookSecret: SECRETS.webhookSecret } }, 'registered');

    const output = text();
    expect(output.split('\n')).toHaveLength(5);
    for (const secret of Object.values(SECRETS)) expect(output).not.toContain(secret);
    expect(output).toContain(REDACTED);
    for (const line of output.split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('redaction edge cases', () => {
  it('judges keys by their words: secret holders redacted, their ids and types kept', () => {
    const out = redact({
      'x-consent': 'tok',
      consent_token: 'tok',
      'client-secret': 's',
      api_key: 'k',
      consentId: 'c1',
      tokenKeyId: 'k1',
      tokenType: 'Bearer',
      authorisationUrl: 'https://bank/authorise',
      consentStatus: 'AUTHORIZED',
      sca_code: 'ABC',
    });
    expect(out).toEqual({
      'x-consent': REDACTED,
      consent_token: REDACTED,
      'client-secret': REDACTED,
      api_key: REDACTED,
      consentId: 'c1',
      tokenKeyId: 'k1',
      tokenType: 'Bearer',
      authorisationUrl: 'https://bank/authorise',
      consentStatus: 'AUTHORIZED',
      sca_code: REDACTED,
    });
  });

  it('redacts an alphanumeric one-time code under `code`', () => {
    expect(redact({ code: 'A1B2C3' })).toEqual({ code: REDACTED });
  });

  it('scrubs any query parameter whose name says it carries a secret', () => {
    const text = redactText('/cb?access_token=a1&client_secret=b2&one-time-token=c3&api_key=d4&page=2');
    for (const secret of ['a1', 'b2', 'c3', 'd4']) expect(text).not.toContain(`=${secret}`);
    expect(text).toContain('page=2');
  });

  it('redacts child bindings and interpolated objects, and keeps an error’s type and cause', () => {
    const { logger, text } = captureLogger();
    logger.child({ consentToken: 'child-secret-value' }).info('child');
    logger.info('payload %j', { password: 'interpolated-secret' });
    const cause = new Error('root cause with Bearer cause-secret-value');
    logger.error({ err: new TypeError('outer', { cause }) }, 'failed');
    const output = text();
    for (const secret of ['child-secret-value', 'interpolated-secret', 'cause-secret-value'])
      expect(output).not.toContain(secret);
    const errorLine = JSON.parse(output.split('\n')[2]);
    expect(errorLine.err).toMatchObject({ type: 'TypeError', message: 'outer', cause: { type: 'Error' } });
  });
});
