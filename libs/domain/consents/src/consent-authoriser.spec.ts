import { describe, expect, it } from 'vitest';
import { expiryOf } from './consent-authoriser.service.js';
import { ConsentStatus } from './consent-status.js';
import { MAX_DATA_CONSENT_DAYS } from './consent-terms.js';

const authorizedAt = new Date('2026-11-22T10:00:00Z');
const asked = new Date('2026-12-01T00:00:00Z');
const longest = new Date(authorizedAt.getTime() + MAX_DATA_CONSENT_DAYS * 86_400_000);

describe('expiryOf (version 2 of the upstream omits expiresAt on GET /consents)', () => {
  it('takes the upstream’s expiry when it names one', () => {
    const consent = { status: ConsentStatus.AwaitingAuthorisation, expiresAt: asked };
    expect(expiryOf({ expiresAt: '2027-01-01T00:00:00Z' }, consent, authorizedAt)).toEqual(
      new Date('2027-01-01T00:00:00Z'),
    );
  });

  it('keeps what we asked for when the upstream is silent', () => {
    const consent = { status: ConsentStatus.AwaitingAuthorisation, expiresAt: asked };
    expect(expiryOf({}, consent, authorizedAt)).toEqual(asked);
  });

  it('falls back to the longest a data consent lasts, from the authorisation', () => {
    const consent = { status: ConsentStatus.AwaitingScaCode, expiresAt: null };
    expect(expiryOf({}, consent, authorizedAt)).toEqual(longest);
  });

  it('never keeps a re-authorised consent’s old expiry', () => {
    const consent = { status: ConsentStatus.AwaitingReauthorisation, expiresAt: asked };
    expect(expiryOf({}, consent, authorizedAt)).toEqual(longest);
  });
});
