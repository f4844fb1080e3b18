import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { Expiry } from './upstream-attempt.outcome.js';

/**
 * Calls dispatched on a connection, by their abort signal: undici tells a handler when its request is
 * written to a socket (`onRequestStart`), which is when the attempt's own timeout should start; time
 * spent queued for a pooled connection is local load, not the institution's slowness.
 */
const onDispatched = new WeakMap<AbortSignal, () => void>();

/** The pool's dispatch, telling each attempt's timer when its request went out on a connection. */
export function dispatchNotifier(dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] {
  return (opts, handler) => {
    const signal = (opts as { signal?: unknown }).signal as AbortSignal | undefined;
    const notify = signal ? onDispatched.get(signal) : undefined;
    if (!notify) return dispatch(opts, handler);
    const inner = handler;
    const wrapped: Dispatcher.DispatchHandler = {
      onRequestStart: (controller, context) => {
        notify();
        inner.onRequestStart?.(controller, context);
      },
      onRequestUpgrade: (...args) => inner.onRequestUpgrade?.(...args),
      onResponseStart: (...args) => inner.onResponseStart?.(...args),
      onResponseData: (...args) => inner.onResponseData?.(...args),
      onResponseEnd: (...args) => inner.onResponseEnd?.(...args),
      onResponseError: (...args) => inner.onResponseError?.(...args),
    };
    return dispatch(opts, wrapped);
  };
}

/**
 * One attempt's two timeouts. Waiting for a pooled connection gets its own timeout of the attempt's
 * length (capped by the call's deadline); the attempt's timeout starts only once the request is on a
 * connection. The caller's abort aborts the attempt too. `expired` says which timer fired, if one did.
 */
export class AttemptTimer {
  private readonly controller = new AbortController();
  private readonly started = performance.now();
  private timer: NodeJS.Timeout;
  expired: Expiry;

  constructor(
    timeoutMs: number,
    remainingMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.expire('queued'), timeoutMs);
    onDispatched.set(this.controller.signal, () => {
      clearTimeout(this.timer);
      const left = Math.min(timeoutMs, remainingMs - this.elapsedMs());
      this.timer = setTimeout(() => this.expire('sent'), Math.max(0, left));
    });
    caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  elapsedMs(): number {
    return performance.now() - this.started;
  }

  dispose(): void {
    clearTimeout(this.timer);
    onDispatched.delete(this.controller.signal);
    this.caller?.removeEventListener('abort', this.onAbort);
  }

  private readonly onAbort = () => this.controller.abort(this.caller?.reason);

  private expire(stage: Expiry): void {
    this.expired = stage;
    this.controller.abort();
  }
}
