// The console's ways to the api, both authenticated by the console session's HttpOnly cookie (the page
// never holds a credential): the merchant SDK, from the api's own bundle, for the merchant API; a small
// same-origin fetch for the sign-in and the operator's routes, which are not the SDK's.
import { createBffClient } from './merchant-sdk.js';

/** A 401 means the session ended (8 hours passed, the key was revoked, the operator token changed). */
function sessionEnded() {
  window.dispatchEvent(new window.CustomEvent('console-session-ended'));
}

export const bff = createBffClient({
  baseUrl: location.origin,
  cookie: true,
  fetch: async (request, init) => {
    const response = await fetch(request, init);
    if (response.status === 401) sessionEnded();
    return response;
  },
});

/** An answer in the error envelope: its words, code and tracing id, for a person to read or quote. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = body?.error ?? {};
    super(error.message ?? `The api answered ${status}.`);
    this.status = status;
    this.code = error.code ?? 'UNKNOWN';
    this.tracingId = error.tracingId;
  }
}

/** One call: the answer's envelope (`{ data, meta, links }`), undefined for 204, or an ApiError. */
export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (response.status === 204) return undefined;
  const json = await response.json().catch(() => null);
  if (response.status === 401 && path !== '/console/session') sessionEnded();
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body ?? {});
export const patch = (path, body) => call('PATCH', path, body);
export const del = (path) => call('DELETE', path);

/** One page of an admin list: its items and the cursor of the next page (null on the last). */
export async function page(path, cursor) {
  const separator = path.includes('?') ? '&' : '?';
  const answer = await get(cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path);
  return { items: answer.data, nextCursor: answer.meta?.nextCursor ?? null };
}
