/**
 * Revalidation (`createBffClient({ revalidate: true })`): the api's hot reads carry a strong `ETag` over
 * their whole answer but `meta.tracingId`, and answer 304 without a body to an `If-None-Match` that holds
 * it. The client keeps, per URL and per credential, the last tagged 200's ETag and its parsed answer;
 * a read it has a tag for is sent conditional, and a 304 is answered with a copy of the kept answer
 * (`meta.tracingId` the new request's): the body is neither sent nor parsed again.
 *
 * It lives in two places: the fetch below sends the tag and reads the 304, and `dataOf`/`envelopeOf`
 * hand out (or keep) the parsed answer of the Response they are given, through the maps of this module.
 */

/** The most answers one client keeps; past it, the least recently used goes. */
export const REVALIDATE_MAX_ENTRIES = 500;

interface Kept {
  etag: string;
  /** The parsed answer, a copy no caller holds. */
  answer: unknown;
}

/** A bounded least-recently-used map (a Map iterates in insertion order: the first key is the oldest). */
export class KeptAnswers {
  private readonly entries = new Map<string, Kept>();

  constructor(private readonly max = REVALIDATE_MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Kept | undefined {
    const kept = this.entries.get(key);
    if (kept) {
      this.entries.delete(key);
      this.entries.set(key, kept);
    }
    return kept;
  }

  set(key: string, kept: Kept): void {
    this.entries.delete(key);
    this.entries.set(key, kept);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** 304s answered from a kept answer: the answer to hand out (already a copy, with its tracing id). */
const ANSWERED = new WeakMap<Response, unknown>();
/** Tagged 200s: how to keep the answer once it is parsed. */
const TO_KEEP = new WeakMap<Response, (answer: unknown) => void>();

/** The kept answer a 304 stands for, or undefined for any other response. */
export const keptAnswerOf = (response: Response): unknown => ANSWERED.get(response);

/** Keeps a tagged 200's parsed answer (a copy of it: the caller may change theirs); else nothing. */
export function keepAnswer(response: Response, answer: unknown): void {
  TO_KEEP.get(response)?.(answer);
  TO_KEEP.delete(response);
}

/**
 * `send` with revalidation: every GET that carries no `If-None-Match` of its own. A 304 that the kept
 * answer cannot stand for (none kept, another tag, no `x-request-id` to name it) is never made into
 * data: the GET is sent again without the tag.
 */
export function revalidatingFetch(
  send: (request: Request) => Promise<Response>,
  kept = new KeptAnswers(),
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' || request.headers.has('if-none-match')) return send(request);
    // Per credential: a cookie is not readable, but the api checks it before any 304.
    const key = `${request.headers.get('authorization') ?? ''} ${request.url}`;
    const entry = kept.get(key);
    if (entry) request.headers.set('if-none-match', entry.etag);
    let response = await send(request);
    if (response.status === 304 && entry) {
      const etag = response.headers.get('etag');
      const tracingId = response.headers.get('x-request-id');
      if ((etag === null || etag === entry.etag) && tracingId) {
        ANSWERED.set(response, withTracingId(copyJson(entry.answer), tracingId));
        return response;
      }
    }
    if (response.status === 304) {
      kept.delete(key);
      await response.body?.cancel();
      request.headers.delete('if-none-match');
      response = await send(request);
    }
    kept.delete(key);
    const etag = response.headers.get('etag');
    if (response.status === 200 && etag?.startsWith('"') && isJson(response)) {
      TO_KEEP.set(response, (answer) => kept.set(key, { etag, answer: copyJson(answer) }));
    }
    return response;
  };
}

const isJson = (response: Response) => /\bjson\b/i.test(response.headers.get('content-type') ?? '');

/** The envelope's `meta.tracingId` set to the request's that revalidated it. */
function withTracingId(answer: unknown, tracingId: string): unknown {
  const meta = (answer as { meta?: unknown } | null)?.meta;
  if (typeof meta === 'object' && meta !== null && 'tracingId' in meta) {
    meta.tracingId = tracingId;
  }
  return answer;
}

/** A deep copy of parsed JSON: a few times faster than parsing it again. */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = copyJson((value as Record<string, unknown>)[key]);
    // JSON may name a field `__proto__`: define it, never set the copy's prototype.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = field;
  }
  return copy as T;
}
