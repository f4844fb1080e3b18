import type { INestApplicationContext } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { AppLogger } from '#libs/observability';

/** The whole stop, from the signal to the exit: under the 10 s an orchestrator waits before SIGKILL. */
export const SHUTDOWN_BUDGET_MS = 9_000;
/**
 * How long before the deadline requests still in flight are cut (`cutInFlight`), and work `before` waits
 * on is given up: the closers after the HTTP server (the pool, Redis, the last spans) each bound
 * themselves to about 2 s.
 */
export const CUT_IN_FLIGHT_BEFORE_DEADLINE_MS = 3_000;

export interface ShutdownPlan {
  logger: AppLogger;
  budgetMs?: number;
  /**
   * Work done before the app's hooks run (the worker hands its jobs back here). `step` names what is
   * under way, so a stop that overruns its budget says where it was stuck.
   */
  before?: (deadlineAt: number, step: (name: string) => void) => Promise<void>;
  /** Work done once the app is closed, before the exit (the last spans exported); bounds itself. */
  after?: () => Promise<void>;
  /**
   * Ends what is still in flight when the stop nears its deadline (an HTTP app's open connections: a
   * request waiting on a slow upstream would otherwise hold the server's close past the budget). Its
   * caller sees the connection end and retries, on another process, with its idempotency key.
   */
  cutInFlight?: () => void;
}

/**
 * Stops the app on SIGTERM or SIGINT within a bounded time: `before`, then Nest's hooks (`app.close()`),
 * then exit code 0. Each closer bounds itself (a Redis or Postgres that is down is dropped, not waited
 * for); should one hang all the same, the deadline logs the step it was stuck in and exits 1, so an
 * orchestrator never has to SIGKILL us. A second signal while stopping is logged and otherwise ignored
 * (Ctrl-C in `npm start` reaches the process twice: from the terminal and from the script).
 */
export function stopOnSignals(app: INestApplicationContext, plan: ShutdownPlan): void {
  const { logger } = plan;
  const budgetMs = plan.budgetMs ?? SHUTDOWN_BUDGET_MS;
  // Nest's own listeners (createHttpApp enables them) close the app and then re-raise the signal, so the
  // process would end by the signal rather than with exit code 0, and with no bound on the hooks.
  (app as { unsubscribeFromProcessSignals?: () => void }).unsubscribeFromProcessSignals?.();
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    const started = Date.now();
    const deadlineAt = started + budgetMs;
    let stepName = 'starting';
    const step = (name: string) => {
      stepName = name;
    };
    logger.info({ signal, budgetMs }, 'shutting down');
    const cut =
      plan.cutInFlight &&
      setTimeout(() => {
        logger.warn({ signal }, 'requests still in flight near the deadline: cutting their connections');
        plan.cutInFlight!();
      }, budgetMs - CUT_IN_FLIGHT_BEFORE_DEADLINE_MS);
    const closing = trackClosingHooks(app);
    const overrun = setTimeout(() => {
      const waitingOn = [...closing].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name));
      logger.error(
        { signal, budgetMs, stuckIn: stepName, waitingOn },
        `shutdown did not finish within ${budgetMs} ms (stuck in: ${stepName}${waitingOn.length > 0 ? `, waiting on ${waitingOn.join(', ')}` : ''}); exiting`,
      );
      process.exit(1);
    }, budgetMs);
    void (async () => {
      try {
        if (plan.before) await plan.before(deadlineAt, step);
        step('closing connections');
        await app.close();
        step('flushing traces');
        if (plan.after) await plan.after();
        clearTimeout(overrun);
        clearTimeout(cut);
        logger.info({ signal, ms: Date.now() - started }, 'stopped');
        process.exit(0);
      } catch (err) {
        logger.error({ err, stuckIn: stepName }, 'shutdown failed');
        process.exit(1);
      }
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const CLOSING_HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;

/**
 * The lifecycle hooks running while the app closes, as `Class.hook`: Nest runs a module's hooks together,
 * so a stop past its deadline names each one still waiting rather than only "closing connections" (an
 * api's BullMQ queues once waited there for a Redis that had gone, and nothing said which).
 */
function trackClosingHooks(app: INestApplicationContext): ReadonlyMap<string, number> {
  const running = new Map<string, number>();
  const wrapped = new WeakSet<object>();
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of [...module.providers.values(), ...module.controllers.values()]) {
      const instance = wrapper.instance as Record<string, unknown> | null | undefined;
      if (!instance || typeof instance !== 'object' || wrapped.has(instance)) continue;
      wrapped.add(instance);
      for (const hook of CLOSING_HOOKS) {
        const original = instance[hook];
        if (typeof original !== 'function') continue;
        const name = `${instance.constructor?.name ?? 'provider'}.${hook}`;
        instance[hook] = async function (this: unknown, ...args: unknown[]) {
          running.set(name, (running.get(name) ?? 0) + 1);
          try {
            return await (original as (...a: unknown[]) => unknown).apply(this, args);
          } finally {
            const left = running.get(name)! - 1;
            if (left > 0) running.set(name, left);
            else running.delete(name);
          }
        };
      }
    }
  }
  return running;
}

/**
 * `work`, but given up after `ms`: `onTimeout` runs instead (a forced close) and the result says which
 * happened. A rejection of `work` after the timeout is dropped: its outcome no longer matters.
 */
export async function within<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => void,
): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), Math.max(0, ms));
  });
  work.catch(() => undefined);
  try {
    const outcome = await Promise.race([work.then((value) => ({ done: true as const, value })), timedOut]);
    if (!outcome.done) onTimeout();
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}
