import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { BffError, retryAfterSeconds } from './errors.js';
import type { paths } from './generated/openapi.js';
import { newIdempotencyKey, takesIdempotencyKey } from './idempotency.js';
import { keepAnswer, keptAnswerOf, revalidatingFetch } from './revalidation.js';

/** The openapi-fetch client over the merchant API's paths: every path and method typed from the document. */
export type RawClient = Client<paths>;

/** An API key (`mk_…`) or a user's session token (`us_…`), or how to get the current one. */
export type TokenSource = string | (() => string | Promise<string>);

export interface TransportOptions {
  baseUrl: string;
  /** None on a page the api serves itself: the web console's cookie authenticates it. */
  token?: TokenSource;
  /** The fetch to send with (default: the global one); a stream's requests come with `{ signal }`. */
  fetch?: (request: Request, init?: { signal?: AbortSignal }) => Promise<Response>;
  /** Retries of a 429, or of a 503 where retrying is safe (default 2, so three attempts at most). */
  maxRetries?: number;
  /** The longest `Retry-After` waited out (default 60 s); a longer one is the caller's to handle. */
  maxRetryAfterSeconds?: number;
  /** GETs revalidated with the last tagged answer (src/revalidation.ts); `dataOf`/`envelopeOf` only. */
  revalidate?: boolean;
}

/**
 * The raw client with the SDK's behaviour in it, so that calls made through `raw` get it too:
 * - the bearer token on every request (when there is one);
 * - an `Idempotency-Key` on every creating POST that has none;
 * - retries of 429 (refused before any work) and of 503 when the request is safe to repeat: a GET, PUT
 *   or DELETE, or a request that carries an `Idempotency-Key` (the API answers a repeat from its record).
 *   A POST or PATCH without one is not repeated: the caller decides, with `BffError.retryAfter`.
 * With `revalidate`, a 304 is an answer only `dataOf` and `envelopeOf` read: not for `bff.raw`.
 */
export function createRawClient(options: TransportOptions): RawClient {
  const retrying = retryingFetch(options);
  const raw = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.revalidate ? revalidatingFetch(retrying) : retrying,
  });
  raw.use(requestHeaders(options.token));
  return raw;
}

function requestHeaders(token: TokenSource | undefined): Middleware {
  return {
    async onRequest({ request, schemaPath }) {
      if (token !== undefined && !request.headers.has('authorization')) {
        const value = typeof token === 'function' ? await token() : token;
        request.headers.set('authorization', `Bearer ${value}`);
      }
      if (takesIdempotencyKey(request.method, schemaPath) && !request.headers.has('idempotency-key')) {
        request.headers.set('idempotency-key', newIdempotencyKey());
      }
      return request;
    },
  };
}

const SAFE_TO_REPEAT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

function retryable(request: Request, response: Response): boolean {
  if (response.status === 429) return true;
  if (response.status !== 503) return false;
  return SAFE_TO_REPEAT.has(request.method) || request.headers.has('idempotency-key');
}

/**
 * The signal a call was given, carried on the request under this name (openapi-fetch copies unknown
 * options onto its Request). Node's fetch links a Request's own signal to the caller's through weak
 * references, which a garbage collection can cut while a long body (the event stream) is still read:
 * the caller's signal is therefore handed to fetch itself.
 */
export const CALLER_SIGNAL = 'callerSignal';

function retryingFetch(options: TransportOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request, init?: RequestInit) => globalThis.fetch(request, init));
  const maxRetries = options.maxRetries ?? 2;
  const maxWait = options.maxRetryAfterSeconds ?? 60;
  return async (request) => {
    const signal = (request as Request & { [CALLER_SIGNAL]?: AbortSignal })[CALLER_SIGNAL];
    for (let attempt = 0; ; attempt += 1) {
      // Each attempt sends a copy: a body can be read once, and the same headers (the same
      // Idempotency-Key) go every time.
      const response = await send(request.clone(), signal ? { signal } : undefined);
      if (attempt >= maxRetries || !retryable(request, response)) return response;
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > maxWait) return response;
      await response.body?.cancel();
      // Without Retry-After: 0.5 s, 1 s, 2 s … with jitter, so clients refused together do not return together.
      const waitMs =
        retryAfter !== undefined ? retryAfter * 1000 : 500 * 2 ** attempt * (0.8 + Math.random() * 0.4);
      await sleep(waitMs, signal ?? request.signal);
    }
  };
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What an openapi-fetch call answers: `data` on a 2xx, `error` (the parsed body) otherwise. */
interface RawResult<E> {
  data?: E;
  error?: unknown;
  response: Response;
}

/** Awaits a raw call: a failure of the fetch itself becomes a `NETWORK_ERROR`. */
async function settle<E>(pending: Promise<RawResult<E>>): Promise<RawResult<E>> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof BffError || isAbort(error)) throw error;
    throw BffError.network(error);
  }
}

export const isAbort = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';

/** The `data` of a success envelope, or a BffError. */
export async function dataOf<E extends { data: unknown }>(
  pending: Promise<RawResult<E>>,
): Promise<E['data']> {
  return (await envelopeOf(pending)).data;
}

/** The whole success envelope (lists need `meta`), or a BffError. */
export async function envelopeOf<E>(pending: Promise<RawResult<E>>): Promise<E> {
  const result = await settle(pending);
  // A 304 the SDK revalidated: the kept answer, with this request's tracingId.
  const kept = keptAnswerOf(result.response);
  if (kept !== undefined) return kept as E;
  if (!result.response.ok || result.data === undefined)
    throw BffError.fromResponse(result.response, result.error);
  keepAnswer(result.response, result.data);
  return result.data;
}

/** Nothing (a 204), or a BffError. */
export async function doneOf(pending: Promise<RawResult<unknown>>): Promise<void> {
  const result = await settle(pending);
  if (!result.response.ok) throw BffError.fromResponse(result.response, result.error);
}

/** The `Idempotency-Key` header param, when the caller gave one. */
export const idempotencyHeader = (key: string | undefined) =>
  key === undefined ? undefined : { 'Idempotency-Key': key };

/** Options of a creating POST. */
export interface CreateOptions {
  /**
   * Sent as `Idempotency-Key` (default: a new UUID per call). Give your own, stored with what you are
   * creating, to make a call repeated after a crash or a lost answer count once.
   */
  idempotencyKey?: string;
}
