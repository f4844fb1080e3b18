import { invalidRequest } from '#libs/errors';
import { publicRouteUrl } from '#libs/routes';
import type { AccountRequestDetails } from '#libs/upstream-client';

/** Our own state parameter: the upstream generates and returns its own `state`, so ours travels as a forwarded parameter. */
export const STATE_PARAMETER = 'bffState';

/**
 * What every redirect-flow authorisation request (create, pre-authorisation update) sends besides the
 * user and the institution: our callback, a one-time token instead of the consent token (which must
 * never reach the browser), our signed state as a forwarded parameter, and the consent details.
 */
export function redirectAuthorisation(
  publicUrl: string,
  state: string,
  accountRequest: AccountRequestDetails,
) {
  return {
    callback: publicRouteUrl(publicUrl, 'consentCallback'),
    oneTimeToken: true,
    forwardParameters: [`${STATE_PARAMETER}=${state}`],
    accountRequest,
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
