// The developer panel: every call the page made, to the BFF (through the SDK) and to the demo's backend.
import { $ } from './ui.js';

export function logCall(method, path, status, tracingId) {
  const row = document.createElement('tr');
  for (const text of [method, path, String(status), tracingId ?? '']) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  $('calls').tBodies[0].prepend(row);
}

const browserFetch = window.fetch.bind(window);

/**
 * The fetch the SDK sends with (its `fetch` option, and <bff-connect>'s `fetch` property): the browser's,
 * noting each call in the panel. The
 * tracingId is the answer's X-Request-Id, which the API exposes to the page, so that nothing here reads
 * the body: the event stream stays a stream, and the SDK gets the answer untouched.
 */
export function recordingFetch() {
  // The SDK hands a stream's `{ signal }` over as `init`: passed on, so that closing the stream ends it.
  return async (request, init) => {
    const url = new URL(request.url);
    const path = `${url.pathname}${url.search}`;
    const label = request.headers.get('accept') === 'text/event-stream' ? `${path} (SSE)` : path;
    try {
      const response = await browserFetch(request, init);
      logCall(request.method, label, response.status, response.headers.get('x-request-id'));
      return response;
    } catch (error) {
      // A stream closed on purpose is no failure; anything else went out and got no answer.
      if (error?.name !== 'AbortError') logCall(request.method, label, 'no answer', '');
      throw error;
    }
  };
}

/** A call to the demo's own backend (it holds the merchant API key), noted in the panel too. */
export async function backend(method, path, body) {
  const response = await browserFetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => null);
  logCall(method, `(demo backend) ${path}`, response.status, json?.meta?.tracingId ?? json?.error?.tracingId);
  return { ok: response.ok, body: json };
}
