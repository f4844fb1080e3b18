import type { UpstreamError } from '#libs/upstream-client';
import { ConsentStatus } from './consent-status.js';

/** What a "gone" signal leaves our consent in, the code recorded, and (a webhook's) the message. */
export interface ConsentGone {
  status: ConsentStatus;
  code: string;
  message?: string;
}

/**
 * Every way the bank tells us it no longer honours a consent, keyed by how it says it, mapped to the
 * status it leaves our consent in and the code recorded (with the message, for a webhook): one table, so
 * a call that failed, a reconciliation and a webhook cannot disagree about the same news.
 */
export const CONSENT_GONE_SIGNALS = {
  /** An upstream call failed with one of the upstream client's consent faults (the code is the kind). */
  errorKind: {
    CONSENT_EXPIRED: { status: ConsentStatus.Expired, code: 'CONSENT_EXPIRED' },
    CONSENT_REVOKED: { status: ConsentStatus.Revoked, code: 'CONSENT_REVOKED' },
    CONSENT_CONSUMED: { status: ConsentStatus.Consumed, code: 'CONSENT_CONSUMED' },
    // The upstream refuses the token itself (superseded or unknown): only a new authorisation helps.
    CONSENT_INVALID: { status: ConsentStatus.Expired, code: 'CONSENT_INVALID' },
  },
  /** The upstream's status of the consent, as reconciliation reads it. */
  upstreamStatus: {
    REVOKED: { status: ConsentStatus.Revoked, code: 'CONSENT_REVOKED' },
    EXPIRED: { status: ConsentStatus.Expired, code: 'CONSENT_EXPIRED' },
  },
  /** An upstream webhook's event type. */
  webhookType: {
    'consent.state.revoked': {
      status: ConsentStatus.Revoked,
      code: 'CONSENT_REVOKED',
      message: 'The bank reported the consent revoked.',
    },
    'consent.state.expired': {
      status: ConsentStatus.Expired,
      code: 'CONSENT_EXPIRED',
      message: 'The bank reported the consent expired.',
    },
  },
} as const satisfies Record<string, Record<string, ConsentGone>>;

type Signals = typeof CONSENT_GONE_SIGNALS;
export type GoneSignal = keyof Signals;

/**
 * The entry for `value` of the `signal` kind, or undefined when it does not say the consent is gone (only
 * the table's own keys: a word such as `constructor` is not one).
 */
export function consentGone<S extends GoneSignal>(
  signal: S,
  value: string,
): Signals[S][keyof Signals[S]] | undefined {
  const table = CONSENT_GONE_SIGNALS[signal];
  return Object.hasOwn(table, value) ? table[value as keyof Signals[S]] : undefined;
}

/** A failed upstream call that says the consent is gone, with the message every caller records for it. */
export function consentGoneOnError(error: UpstreamError): Required<ConsentGone> | undefined {
  const gone = consentGone('errorKind', error.kind);
  return gone && { ...gone, message: `upstream ${error.kind} (status ${error.status ?? 'none'})` };
}
