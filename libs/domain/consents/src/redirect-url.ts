import { INSTANT_FORMS, parseInstant } from '#libs/core';
import { invalidRequest } from '#libs/errors';

/** Our own state parameter: the upstream generates and returns its own `state`, so ours travels as a forwarded parameter. */
export const STATE_PARAMETER = 'bffState';

/** A term's date by the API's one rule (the input validator applies the same; this guards other callers). */
function parseDate(field: string, value: string | undefined): Date | null {
  if (!value) return null;
  const date = parseInstant(value);
  if (date) return date;
  throw invalidRequest([{ field, issue: `must be ${INSTANT_FORMS}` }]);
}

/** The terms a merchant asks of a consent (all optional: the bank's defaults otherwise). */
export interface ConsentTerms {
  scopes?: string[];
  expiresAt?: string;
  transactionsFrom?: string;
  transactionsTo?: string;
}

/**
 * What every redirect-flow authorisation request (create, pre-authorisation update) sends besides the
 * user and the institution: our callback, a one-time token instead of the consent token (which must
 * never reach the browser), our signed state as a forwarded parameter, and the terms; and the terms'
 * dates, parsed, for the row.
 */
export function redirectAuthorisation(publicUrl: string, state: string, terms: ConsentTerms) {
  const expiresAt = parseDate('expiresAt', terms.expiresAt);
  const transactionsFrom = parseDate('transactionsFrom', terms.transactionsFrom);
  const transactionsTo = parseDate('transactionsTo', terms.transactionsTo);
  return {
    dates: { expiresAt, transactionsFrom, transactionsTo },
    request: {
      callback: `${publicUrl}/v1/callbacks/consents`,
      oneTimeToken: true,
      forwardParameters: [`${STATE_PARAMETER}=${state}`],
      accountRequest: {
        ...(terms.scopes ? { featureScope: terms.scopes } : {}),
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
        ...(transactionsFrom ? { transactionFrom: transactionsFrom.toISOString() } : {}),
        ...(transactionsTo ? { transactionTo: transactionsTo.toISOString() } : {}),
      },
    },
  };
}

/**
 * The merchant's page must be an absolute http(s) URL; when the merchant lists frontend origins, its
 * origin must be one of them, so a leaked session cannot send the user (and the outcome) elsewhere.
 */
export function checkRedirectUrl(redirectUrl: string, frontendOrigins: string[]): void {
  const refuse = (issue: string) => invalidRequest([{ field: 'redirectUrl', issue }]);
  let url: URL;
  try {
    url = new URL(redirectUrl);
  } catch {
    throw refuse('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must be an absolute http(s) URL');
  if (url.username || url.password) throw refuse('must not carry credentials');
  if (frontendOrigins.length > 0 && !frontendOrigins.includes(url.origin))
    throw refuse("must be on one of the merchant's frontendOrigins");
}
