import { DomainError, ErrorCode } from '#libs/errors';
import { CONSOLE_COOKIE } from './console-session.service.js';

type Headers = Record<string, string | string[] | undefined>;

/** The console cookie's value on a request, if it carries one. */
export function consoleCookie(headers: Headers): string | undefined {
  const header = headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === CONSOLE_COOKIE) return pair.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * The Set-Cookie header of a console session: HttpOnly (no script reads it), SameSite=Strict (no other
 * site's page sends it), Secure when the api is served over https. `maxAgeSeconds` 0 clears it.
 */
export function consoleSetCookie(value: string, maxAgeSeconds: number, publicUrl: string): string {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${CONSOLE_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF, beside SameSite=Strict: a request the cookie authenticates that changes something must say it
 * comes from the api's own origin (`Origin`, or else `Sec-Fetch-Site: same-origin`), which only the
 * browser sets and no other site's page can forge.
 */
export function assertSameOrigin(method: string, headers: Headers, publicUrl: string): void {
  if (SAFE_METHODS.has(method.toUpperCase())) return;
  const origin = headers.origin;
  const ownOrigin = new URL(publicUrl).origin;
  const fromHere =
    typeof origin === 'string' ? origin === ownOrigin : headers['sec-fetch-site'] === 'same-origin';
  if (!fromHere) throw crossOrigin(ownOrigin);
}

/**
 * A sign-in must not come from another site's page either (it could sign a browser into the wrong
 * account); unlike a cookie request it may come from no browser at all (curl), with neither header.
 */
export function assertNotCrossSite(headers: Headers, publicUrl: string): void {
  const origin = headers.origin;
  const ownOrigin = new URL(publicUrl).origin;
  const site = headers['sec-fetch-site'];
  const fromHere =
    typeof origin === 'string'
      ? origin === ownOrigin
      : site === undefined || site === 'same-origin' || site === 'none';
  if (!fromHere) throw crossOrigin(ownOrigin);
}

function crossOrigin(ownOrigin: string): DomainError {
  return new DomainError(
    ErrorCode.FORBIDDEN,
    `The console signs in and changes things only from its own origin (${ownOrigin}).`,
  );
}
