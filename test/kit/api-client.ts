import { expect } from 'vitest';

// The tests' one way to call the api: a typed HTTP client, its raw form, and the envelopes it reads.

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else its text (undefined when empty). */
  body: T;
}

/** The api's success envelope: what every 2xx answer with a body wraps its data in. */
export interface Envelope<T> {
  data: T;
  meta: { tracingId: string; count?: number; nextCursor?: string | null };
  links?: { next?: string };
}

/** The api's error envelope. */
export interface ErrorBody {
  error: {
    code: string;
    status: number;
    message: string;
    details?: { field: string; issue: string }[];
    upstream?: { status: number; tracingId?: string };
  };
}

export interface ApiCallOptions {
  body?: unknown;
  /** Sent as is, instead of `body`'s JSON. */
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Overrides the client's bearer token; `null` sends none. */
  token?: string | null;
}

/**
 * What every answer of the api holds, checked on every call of the helper: a 429 or a 503 says when to
 * try again, as a Retry-After header of whole seconds and the same number in the envelope.
 */
function expectRetryAfterStated(response: Response, body: unknown): void {
  if (response.status !== 429 && response.status !== 503) return;
  const error = (body as { error?: { retryAfterSeconds?: unknown } } | undefined)?.error;
  if (!error) return; // not the api's envelope (a readiness probe's report)
  const header = response.headers.get('retry-after');
  expect(header, `${response.status} without Retry-After: ${JSON.stringify(body)}`).toMatch(/^\d+$/);
  expect(error.retryAfterSeconds, `${response.status}: Retry-After in the envelope`).toBe(Number(header));
}

/**
 * The one request helper of the tests: a client for the api (`stack.operator`, `stack.anonymous`,
 * `tenant.client`, `.as(token)` for any other caller), answers typed by `get<Envelope<T>>` or read with
 * `dataOf`. `send` below is its raw form, for a request to another app or a URL a test was handed. Every
 * answer is read whole before it is returned: an unread body keeps its connection busy, and closing the
 * api would then wait for it.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  /** The same client with another bearer token. */
  as(token: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  async call<T = any>(method: string, path: string, options: ApiCallOptions = {}): Promise<ApiResponse<T>> {
    const token = options.token === undefined ? this.token : options.token;
    const response = await send(`${this.baseUrl}${path}`, method, { ...options, token });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
    const body = (json ? JSON.parse(text) : text || undefined) as T;
    expectRetryAfterStated(response, body);
    return { status: response.status, headers: response.headers, body };
  }

  get<T = any>(path: string, options?: ApiCallOptions) {
    return this.call<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options: ApiCallOptions = {}) {
    return this.call<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options: ApiCallOptions = {}) {
    return this.call<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: ApiCallOptions) {
    return this.call<T>('DELETE', path, options);
  }
}

/**
 * One request to the api (or any app of the stack), answered as a `Response` whose body has already been
 * read whole: an unread body keeps its connection busy, and closing the app would then wait for it.
 * Redirects are not followed (the callback's 302 is what tests look at).
 */
export async function send(
  url: string,
  method: string,
  options: Omit<ApiCallOptions, 'token'> & { token?: string | null } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (typeof options.body === 'string') payload = options.body;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] ??= options.contentType ?? 'application/json';
  const response = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
  const bytes = await response.arrayBuffer();
  const empty = bytes.byteLength === 0 || [204, 304].includes(response.status);
  return new Response(empty ? null : bytes, { status: response.status, headers: response.headers });
}

/** `data` of a success envelope, or an error naming what came back instead. */
export function dataOf<T = any>(response: ApiResponse, status = 200): T {
  if (response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return (response.body as Envelope<T>).data;
}
