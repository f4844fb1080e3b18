import type { BffClient } from '../bff-client.js';
import type { Consent } from '../models.js';
import {
  AWAITING,
  type CancelledDetail,
  type ConnectedDetail,
  connectErrorOf,
  type FailedDetail,
  isTransient,
} from './connect-types.js';

/** How a connection ended: the event to emit and its detail. */
export type Outcome =
  | { type: 'connected'; detail: ConnectedDetail }
  | { type: 'failed'; detail: FailedDetail }
  | { type: 'cancelled'; detail: CancelledDetail };

/**
 * The outcome of a consent that has left the awaiting statuses: AUTHORIZED is `connected`, REJECTED
 * (the user said no at the bank) is `cancelled`, any other end is `failed` with `CONSENT_<STATUS>`.
 * `bankError` is the `error` the redirect came back with, if any (`access_denied`, `server_error`).
 */
export function outcomeOf(consent: Consent, bankError?: string): Outcome {
  if (consent.status === 'AUTHORIZED') return { type: 'connected', detail: { consent } };
  if (consent.status === 'REJECTED') return { type: 'cancelled', detail: { consent } };
  const why = bankError ? ` (${bankError})` : '';
  return {
    type: 'failed',
    detail: {
      consent,
      error: {
        code: `CONSENT_${consent.status}`,
        message: `The bank did not connect: the consent is ${consent.status.toLowerCase()}${why}.`,
      },
    },
  };
}

/**
 * An outcome as the connect funnel files it: a consent REJECTED is declined at the bank, a cancel in the
 * component cancelled, a failure failed with its code.
 */
export function funnelEndOf(
  outcome: Outcome,
): ['connected'] | ['declined'] | ['cancelled'] | ['failed', string] {
  if (outcome.type === 'connected') return ['connected'];
  if (outcome.type === 'failed') return ['failed', outcome.detail.error.code];
  return [outcome.detail.consent?.status === 'REJECTED' ? 'declined' : 'cancelled'];
}

export interface WaitOptions {
  /** How long to wait for the bank, in ms (the API's embedded poll gives up after 2 minutes). */
  timeoutMs: number;
  /** Stops the wait (the element left the page, or the user cancelled): resolves undefined. */
  signal: AbortSignal;
  bankError?: string;
}

/**
 * Reads the consent until it is no longer awaiting the user or the bank, every 0.5 s growing to 3 s, and
 * at most `timeoutMs`: then `CONNECT_TIMEOUT`. A transient failure (no answer, 429, 5xx) is read again
 * until the deadline; any other fails at once.
 */
export async function waitForConsent(
  bff: BffClient,
  consentId: string,
  options: WaitOptions,
): Promise<Outcome | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  let last: Consent | undefined;
  for (let pause = 500; ; pause = Math.min(pause * 1.5, 3000)) {
    try {
      last = await bff.consents.get(consentId);
      if (options.signal.aborted) return undefined;
      if (!AWAITING.has(last.status)) return outcomeOf(last, options.bankError);
    } catch (error) {
      if (options.signal.aborted) return undefined;
      if (!isTransient(error) || Date.now() + pause > deadline) {
        return {
          type: 'failed',
          detail: { ...(last ? { consent: last } : {}), error: connectErrorOf(error) },
        };
      }
    }
    if (Date.now() + pause > deadline) {
      const message = 'The bank has not answered yet. Check again later, or connect again.';
      return {
        type: 'failed',
        detail: { ...(last ? { consent: last } : {}), error: { code: 'CONNECT_TIMEOUT', message } },
      };
    }
    if (!(await delay(pause, options.signal))) return undefined;
  }
}

/** Waits `ms`; false when `signal` aborted first. */
function delay(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (value: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
