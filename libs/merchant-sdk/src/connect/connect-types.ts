import { BffError } from '../errors.js';
import type { Consent } from '../models.js';

/**
 * Why a connection failed, as `failed` events carry it and the component shows it: an API error's
 * `code`, `message` and `tracingId` (quote it to support), or one of the component's own codes:
 * - `CONSENT_<STATUS>` (`CONSENT_FAILED`, `CONSENT_EXPIRED`, …): the consent ended without an
 *   authorisation; `message` says how (with the bank's `error`, after a redirect);
 * - `CONNECT_TIMEOUT`: the bank had not decided by the deadline (the consent is in the detail, still
 *   awaiting: read it again later, or connect again);
 * - `ORIGIN_NOT_ALLOWED`: the page's origin is not one of the merchant's `frontendOrigins`, so the
 *   browser would hide every answer; `message` names the origin and the list (a developer's to fix);
 * - `UNEXPECTED`: anything else (never a stack).
 */
export interface ConnectError {
  code: string;
  message: string;
  tracingId?: string;
}

/** `connected`: the consent is AUTHORIZED; its accounts are being read and synced. */
export interface ConnectedDetail {
  consent: Consent;
}

/** `failed`: the connection did not happen; `consent` when one was created. */
export interface FailedDetail {
  consent?: Consent;
  error: ConnectError;
}

/** `cancelled`: the user backed out in the component, or rejected the consent at their bank. */
export interface CancelledDetail {
  consent?: Consent;
}

/** The events of `<bff-connect>`, for `addEventListener` typing. */
export interface BffConnectEventMap {
  connected: CustomEvent<ConnectedDetail>;
  failed: CustomEvent<FailedDetail>;
  cancelled: CustomEvent<CancelledDetail>;
}

/** What the user reads of any failure: a BffError's fields, or a plain sentence for anything else. */
export function connectErrorOf(error: unknown): ConnectError {
  if (error instanceof BffError) {
    // In a browser this is also a refusal the browser hid: an answer without CORS headers (the api's
    // 401 to an expired session is one).
    const noAnswer = 'No answer from the server. Check your connection and try again.';
    return {
      code: error.code,
      message: error.code === 'NETWORK_ERROR' ? noAnswer : error.message,
      ...(error.tracingId ? { tracingId: error.tracingId } : {}),
    };
  }
  return { code: 'UNEXPECTED', message: 'Something went wrong. Please try again.' };
}

/** A failure worth trying again in a moment (no answer, the API busy or briefly down). */
export const isTransient = (error: unknown): boolean =>
  error instanceof BffError && (error.status === 0 || error.status === 429 || error.status >= 500);

/** Statuses a consent leaves: the user or the bank is still to decide. */
export const AWAITING = new Set([
  'AWAITING_AUTHORIZATION',
  'AWAITING_RE_AUTHORIZATION',
  'AWAITING_SCA_METHOD',
  'AWAITING_SCA_CODE',
]);

/** The refusal shown when the page's origin is not one the merchant allows, before any call fails. */
export function originNotAllowed(origin: string, allowed: readonly string[]): ConnectError {
  const list = allowed.length > 0 ? allowed.join(', ') : 'none yet';
  return {
    code: 'ORIGIN_NOT_ALLOWED',
    message: `This page's origin ${origin} is not in the merchant's frontendOrigins (${list}). Add it with PATCH /v1/merchant (or ask the operator), then reload.`,
  };
}
