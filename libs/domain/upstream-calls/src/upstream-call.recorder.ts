import { type BeforeApplicationShutdown, Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter } from 'prom-client';
import { currentContext } from '#libs/context';
import { type AppLogger, LOGGER, Metrics } from '#libs/observability';
import { UPSTREAM_CLIENT, type UpstreamAttempt, type UpstreamClient } from '#libs/upstream-client';
import { type RecordedCall, UpstreamCallRepository } from './upstream-call.repository.js';

/** How often the attempts held are written, and how many are written in one statement. */
const FLUSH_EVERY_MS = 1_000;
const BATCH = 500;
/** The most attempts held while Postgres cannot take them; beyond it the oldest go, counted. */
export const MAX_HELD_CALLS = 10_000;
/** How long a stopping process waits to write what it holds. */
const SHUTDOWN_FLUSH_MS = 2_000;

/**
 * Keeps every attempt the upstream client makes for a consent, a sync run or a payment (the work's
 * subject, in its request context), and writes them in batches off the calling path: a call never waits
 * for the log, and a log Postgres cannot take never fails a call. It is a log, not a ledger: what a
 * process holds when it dies (at most a second's worth) is lost, and a database down for long drops the
 * oldest beyond MAX_HELD_CALLS (`bff_upstream_calls_dropped_total`).
 */
@Injectable()
export class UpstreamCallRecorder implements OnModuleInit, BeforeApplicationShutdown {
  private held: RecordedCall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private failing = false;
  private readonly dropped: Counter;

  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly client: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly calls: UpstreamCallRepository,
    metrics: Metrics,
  ) {
    this.dropped =
      (metrics.registry.getSingleMetric('bff_upstream_calls_dropped_total') as Counter | undefined) ??
      new Counter({
        name: 'bff_upstream_calls_dropped_total',
        help: 'Upstream call log entries dropped unwritten: more were held than MAX_HELD_CALLS while Postgres could not take them.',
        registers: [metrics.registry],
      });
  }

  onModuleInit(): void {
    this.client.observeAttempts((attempt) => this.record(attempt));
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.client.observeAttempts(undefined);
    let stop: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (stop = setTimeout(resolve, SHUTDOWN_FLUSH_MS)));
    await Promise.race([this.flush(), late]);
    clearTimeout(stop);
  }

  /** Keeps an attempt made for a consent, run or payment; any other (an institutions refresh) is not kept. */
  record(attempt: UpstreamAttempt): void {
    const subject = currentContext()?.subject;
    if (!subject || !(subject.consentId || subject.syncRunId || subject.paymentId)) return;
    this.held.push({
      merchantId: subject.merchantId,
      consentId: subject.consentId ?? null,
      syncRunId: subject.syncRunId ?? null,
      paymentId: subject.paymentId ?? null,
      operation: attempt.operation,
      institutionId: attempt.institutionId ?? subject.institutionId ?? null,
      status: attempt.status ?? null,
      errorCode: attempt.errorKind ?? null,
      durationMs: attempt.durationMs,
      attempt: attempt.attempt,
      tracingId: attempt.tracingId ?? null,
      at: attempt.startedAt,
    });
    this.trim();
    // A full batch is written at once, unless writing is failing: then only the timer tries again, so
    // an outage does not turn every call into another write.
    if (this.held.length >= BATCH && !this.failing) void this.flush();
  }

  /** Writes what is held, a batch at a time; one writer at a time, so a batch is never written twice. */
  flush(): Promise<void> {
    this.writing ??= this.writeHeld().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async writeHeld(): Promise<void> {
    while (this.held.length > 0) {
      const batch = this.held.splice(0, BATCH);
      try {
        await this.calls.insertBatch(batch);
        if (this.failing) this.logger.info('upstream call log written again');
        this.failing = false;
      } catch (error) {
        // Held again, oldest first, for the next tick; said once until a write succeeds.
        this.held.unshift(...batch);
        this.trim();
        if (!this.failing) this.logger.warn({ err: error }, 'upstream call log cannot be written; held');
        this.failing = true;
        return;
      }
    }
  }

  private trim(): void {
    const over = this.held.length - MAX_HELD_CALLS;
    if (over <= 0) return;
    this.held.splice(0, over);
    this.dropped.inc(over);
  }
}
