import { describe, expect, it } from 'vitest';
import { UpstreamError } from '#libs/upstream-client';
import { CONSENT_GONE_SIGNALS, consentGone, consentGoneOnError } from './consent-gone-signals.js';

/*
 * The three tables this one replaced, as they stood: GONE_STATUS (by upstream error kind, the code being
 * the kind), UPSTREAM_GONE (by the upstream's consent status, in reconciliation) and CONSENT_GONE (by
 * webhook event type, in the inbox fan-out). Every value is pinned, and nothing else is gone.
 */
const BY_ERROR_KIND = {
  CONSENT_EXPIRED: 'EXPIRED',
  CONSENT_REVOKED: 'REVOKED',
  CONSENT_CONSUMED: 'CONSUMED',
  CONSENT_INVALID: 'EXPIRED',
};
const BY_UPSTREAM_STATUS = {
  REVOKED: { status: 'REVOKED', code: 'CONSENT_REVOKED' },
  EXPIRED: { status: 'EXPIRED', code: 'CONSENT_EXPIRED' },
};
const BY_WEBHOOK_TYPE = {
  'consent.state.revoked': {
    status: 'REVOKED',
    code: 'CONSENT_REVOKED',
    message: 'The bank reported the consent revoked.',
  },
  'consent.state.expired': {
    status: 'EXPIRED',
    code: 'CONSENT_EXPIRED',
    message: 'The bank reported the consent expired.',
  },
};

const upstreamError = (kind: UpstreamError['kind'], status?: number) =>
  new UpstreamError('refused', { kind, shape: 'standard', retryable: false, status });

describe('consent gone signals', () => {
  it('maps each upstream error kind to the status it always did, with the kind as the code', () => {
    expect(CONSENT_GONE_SIGNALS.errorKind).toEqual(
      Object.fromEntries(
        Object.entries(BY_ERROR_KIND).map(([kind, status]) => [kind, { status, code: kind }]),
      ),
    );
    for (const [kind, status] of Object.entries(BY_ERROR_KIND)) {
      expect(consentGone('errorKind', kind)).toEqual({ status, code: kind });
    }
  });

  it("maps the upstream's consent statuses and the webhook types as reconciliation and the fan-out did", () => {
    expect(CONSENT_GONE_SIGNALS.upstreamStatus).toEqual(BY_UPSTREAM_STATUS);
    expect(CONSENT_GONE_SIGNALS.webhookType).toEqual(BY_WEBHOOK_TYPE);
    for (const [status, gone] of Object.entries(BY_UPSTREAM_STATUS)) {
      expect(consentGone('upstreamStatus', status)).toEqual(gone);
    }
    for (const [type, gone] of Object.entries(BY_WEBHOOK_TYPE)) {
      expect(consentGone('webhookType', type)).toEqual(gone);
    }
  });

  it('says nothing of any other signal, of a word of another kind, or of a name the object inherits', () => {
    expect(consentGone('errorKind', 'RATE_LIMITED')).toBeUndefined();
    expect(consentGone('errorKind', 'REVOKED')).toBeUndefined();
    expect(consentGone('upstreamStatus', 'AUTHORIZED')).toBeUndefined();
    expect(consentGone('upstreamStatus', 'CONSENT_REVOKED')).toBeUndefined();
    expect(consentGone('webhookType', 'consent.state.authorized')).toBeUndefined();
    expect(consentGone('webhookType', 'payment.state.failed')).toBeUndefined();
    for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(consentGone('webhookType', inherited)).toBeUndefined();
      expect(consentGone('upstreamStatus', inherited)).toBeUndefined();
    }
  });

  it('turns a failed call into the status, the code and the message every caller recorded', () => {
    expect(consentGoneOnError(upstreamError('CONSENT_INVALID', 401))).toEqual({
      status: 'EXPIRED',
      code: 'CONSENT_INVALID',
      message: 'upstream CONSENT_INVALID (status 401)',
    });
    expect(consentGoneOnError(upstreamError('CONSENT_REVOKED'))).toEqual({
      status: 'REVOKED',
      code: 'CONSENT_REVOKED',
      message: 'upstream CONSENT_REVOKED (status none)',
    });
    expect(consentGoneOnError(upstreamError('INSTITUTION', 502))).toBeUndefined();
    expect(consentGoneOnError(upstreamError('RATE_LIMITED', 429))).toBeUndefined();
  });
});
