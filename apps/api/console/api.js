// The console's only way to the api: same-origin fetch, authenticated by the console session's HttpOnly
// cookie (the page never holds a credential). The merchant SDK's client needs a token, so it is not used
// here yet (docs/console.md, "Known gaps").

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
  if (response.status === 401 && path !== '/console/session') {
    // The session ended (8 hours passed, the key was revoked or the operator token changed).
    window.dispatchEvent(new window.CustomEvent('console-session-ended'));
  }
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body ?? {});
export const del = (path) => call('DELETE', path);

/** A path with its query, leaving out what is empty. */
export function withQuery(path, query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
