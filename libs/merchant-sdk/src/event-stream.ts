import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { BffError } from './errors.js';
import { CALLER_SIGNAL, isAbort, type RawClient, sleep } from './http-transport.js';
import type { BffEvent } from './models.js';

/**
 * A user's events as Server-Sent Events (`GET /v1/users/{userId}/events`), read with fetch: a browser's
 * EventSource cannot send the Authorization header. The stream reconnects by itself, resuming after the
 * last event it yielded (`Last-Event-ID`), so a dropped connection or an api restart loses nothing. It
 * stops, throwing a BffError from the `for await`, when the api refuses it for good: the stream ended
 * with an `error` event (the key revoked, the session expired, the user erased, the merchant disabled),
 * or a reconnection answered 401, 403, 404 or 410.
 */

export interface EventStreamOptions {
  /**
   * Resume after this event: a `lastEventId` you stored (`'0'` replays every event still kept). Without
   * it the stream starts from now.
   */
  lastEventId?: string;
  /** Aborting it ends the stream, as `close()` does. */
  signal?: AbortSignal;
  /** The longest pause between reconnection attempts while the api cannot be reached (default 30 s). */
  maxReconnectDelayMs?: number;
  /**
   * A connection that sends nothing for this long, heartbeats included (one every 15 s), is taken as dead
   * and replaced (default 45 s).
   */
  idleTimeoutMs?: number;
}

export interface EventStream extends AsyncIterable<BffEvent> {
  /** The stream position of the last event yielded (or the one given): store it to resume later. */
  readonly lastEventId: string | undefined;
  /** Ends the stream: a `for await` over it finishes. */
  close(): void;
}

/** Failures worth reconnecting after: no answer, a 429 or a 5xx. Any other refusal is final (401, 404, 410 …). */
const transient = (error: BffError) => error.status === 0 || error.status === 429 || error.status >= 500;

export function openEventStream(
  raw: RawClient,
  userId: string,
  options: EventStreamOptions = {},
): EventStream {
  const stopped = new AbortController();
  const { signal } = options;
  if (signal?.aborted) stopped.abort();
  else signal?.addEventListener('abort', () => stopped.abort(), { once: true });
  const state: StreamState = {
    raw,
    userId,
    stopped,
    maxDelayMs: options.maxReconnectDelayMs ?? 30_000,
    idleMs: options.idleTimeoutMs ?? 45_000,
    lastEventId: options.lastEventId,
    serverRetryMs: undefined,
  };
  let iterated = false;

  return {
    get lastEventId() {
      return state.lastEventId;
    },
    close: () => stopped.abort(),
    [Symbol.asyncIterator]() {
      if (iterated) throw new Error('An event stream is read once: open another to read it again');
      iterated = true;
      return readEvents(state);
    },
  };
}

/** What one stream keeps from one connection to the next. */
interface StreamState {
  readonly raw: RawClient;
  readonly userId: string;
  /** Aborted when the stream ends, by the caller or for good. */
  readonly stopped: AbortController;
  readonly maxDelayMs: number;
  readonly idleMs: number;
  lastEventId: string | undefined;
  serverRetryMs: number | undefined;
}

/** A connection resuming after the last event yielded; a refusal throws its BffError. */
async function connect(state: StreamState, connection: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const { lastEventId } = state;
  const result = await state.raw.GET('/v1/users/{userId}/events', {
    params: {
      path: { userId: state.userId },
      header: lastEventId === undefined ? undefined : { 'Last-Event-ID': lastEventId },
    },
    headers: { accept: 'text/event-stream' },
    parseAs: 'stream',
    signal: connection,
    [CALLER_SIGNAL]: connection,
  });
  if (!result.response.ok || !result.data) throw BffError.fromResponse(result.response, result.error);
  return result.data;
}

/** The messages of one connection; a silence longer than idleMs aborts it. */
async function* messages(state: StreamState, body: ReadableStream<Uint8Array>, connection: AbortController) {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (message) => queue.push(message),
    onRetry: (ms) => (state.serverRetryMs = ms),
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let idle = setTimeout(() => connection.abort(), state.idleMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(), state.idleMs);
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    clearTimeout(idle);
    reader.cancel().catch(() => undefined);
  }
}

/** The events, over one connection after another until the stream stops. */
async function* readEvents(state: StreamState): AsyncGenerator<BffEvent> {
  const { stopped } = state;
  let failures = 0;
  try {
    while (!stopped.signal.aborted) {
      const connection = new AbortController();
      const stop = () => connection.abort();
      stopped.signal.addEventListener('abort', stop, { once: true });
      let retryAfter: number | undefined;
      try {
        const body = await connect(state, connection.signal);
        failures = 0;
        for await (const message of messages(state, body, connection)) {
          // The api ends a stream its caller may no longer read: final, like a 401 on reconnecting.
          if (message.event === 'error') throw BffError.fromStreamEnd(message.data);
          const event = parseEvent(message);
          if (message.id !== undefined) state.lastEventId = message.id;
          yield event;
        }
      } catch (error) {
        if (stopped.signal.aborted) return;
        if (error instanceof BffError) {
          if (!transient(error)) throw error;
          retryAfter = error.retryAfter;
        } else if (!isAbort(error) && !(error instanceof TypeError)) {
          throw error;
        }
        failures += 1;
      } finally {
        stopped.signal.removeEventListener('abort', stop);
        connection.abort();
      }
      // The server ended the stream (a restart) or the connection failed: back after the server's
      // `retry:` (1 s without one), doubled for each further failure in a row, or after Retry-After.
      const backoff = Math.min(
        state.maxDelayMs,
        (state.serverRetryMs ?? 1000) * 2 ** Math.max(0, failures - 1),
      );
      const waitMs = retryAfter !== undefined ? retryAfter * 1000 : backoff * (0.8 + Math.random() * 0.4);
      await sleep(waitMs, stopped.signal).catch(() => undefined);
    }
  } finally {
    stopped.abort();
  }
}

function parseEvent(message: EventSourceMessage): BffEvent {
  try {
    return JSON.parse(message.data) as BffEvent;
  } catch (cause) {
    throw new BffError({
      status: 200,
      code: 'UNEXPECTED_RESPONSE',
      message: `Stream message ${message.id ?? ''} is not an event`,
      cause,
    });
  }
}
