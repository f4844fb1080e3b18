import { type BeforeApplicationShutdown, Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter } from 'prom-client';
import { currentContext } from '#libs/context';
import { dependencyFailureOf } from '#libs/errors';
import { type AppLogger, LOGGER, Metrics } from '#libs/observability';
import {
  type AttemptEnd,
  type AttemptStart,
  UPSTREAM_CLIENT,
  type UpstreamAttempt,
  type UpstreamClient,
} from '#libs/upstream-client';
import { type RecordedCall, UpstreamCallRepository } from './upstream-call.repository.js';

/**
 * The error code of an entry written before its attempt was sent, until its outcome is: one a process
 * left so died mid-call (the bank may have answered).
 */
export const IN_FLIGHT = 'IN_FLIGHT';
/** How often the attempts held are written, and how many are written in one statement. */
const FLUSH_EVERY_MS = 1_000;
const BATCH = 500;
/** The most attempts held while Postgres cannot take them; beyond it the oldest go, counted. */
export const MAX_HELD_CALLS = 10_000;
/** How long a stopping process waits to write what it holds. */
const SHUTDOWN_FLUSH_MS = 2_000;
/** The widest of the text columns of `upstream_calls` (operation and error code: 64, the others: 255). */
const CODE_MAX = 64;
const TEXT_MAX = 255;

/**
 * A value as its column takes it: cut to the column's width and without NUL (Postgres text refuses it).
 * The tracing id is the upstream's to choose; one Postgres refused would fail the batch it is in, again
 * on every retry, and the log behind it with it.
 */
const fit = (value: string | null | undefined, max: number): string | null =>
  value == null ? null : value.replaceAll('\u0000', '').slice(0, max);

/**
 * Keeps every attempt the upstream client makes for a consent, a sync run or a payment (the work's
 * subject, in its request context). Each entry is written before its attempt is sent (`IN_FLIGHT`) and
 * completed once it ends, the call waiting for both: a process killed mid-call leaves its entries, so
 * the log holds every request the bank saw. While Postgres is away, attempts are held in memory and
 * written in batches off the calling path instead, so a log Postgres cannot take never fails or holds
 * up a call: then what a process holds when it dies is lost, beyond MAX_HELD_CALLS the oldest are, and
 * an outcome Postgres did not take leaves its entry `IN_FLIGHT`; each such loss but a death's is counted
 * (`bff_upstream_calls_dropped_total`) and logged.
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
        help: 'Upstream call log entries dropped unwritten: more were held than MAX_HELD_CALLS while Postgres could not take them, held when the process stopped, or refused by Postgres; also an outcome Postgres did not take (its entry left IN_FLIGHT).',
        registers: [metrics.registry],
      });
  }

  onModuleInit(): void {
    this.client.observeAttempts((start) => this.begin(start));
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
    // Postgres away (or too slow) as the process stops: what is still held goes with it, counted.
    const lost = this.held.splice(0).length;
    if (lost > 0) {
      this.dropped.inc(lost);
      this.logger.warn({ lost }, 'upstream call log entries lost at shutdown: Postgres did not take them');
    }
  }

  /**
   * Writes an attempt's entry before it is sent; answers what completes it. While writes are failing
   * the attempt is held instead, once it ends.
   */
  async begin(start: AttemptStart): Promise<AttemptEnd> {
    const entry = this.entryOf({
      ...start,
      durationMs: 0,
      status: undefined,
      errorKind: IN_FLIGHT,
      tracingId: undefined,
    });
    if (!entry) return () => undefined;
    if (this.failing) return (attempt) => this.record(attempt);
    let id: string | undefined;
    try {
      id = await this.calls.insertOne(entry);
    } catch (error) {
      if (dependencyFailureOf(error)) this.noteFailing(error);
      return (attempt) => this.record(attempt);
    }
    // No id: the merchant is gone, and its log with it.
    return id === undefined ? () => undefined : (attempt) => this.complete(id, attempt);
  }

  private async complete(id: string, attempt: UpstreamAttempt): Promise<void> {
    const entry = this.entryOf(attempt);
    if (!entry) return;
    try {
      await this.calls.complete(id, entry);
    } catch (error) {
      this.dropped.inc();
      this.logger.warn(
        { err: error, id },
        'upstream call log entry left IN_FLIGHT: Postgres did not take its outcome',
      );
    }
  }

  /** Holds an attempt made for a consent, run or payment, for the next batch; any other is not kept. */
  record(attempt: UpstreamAttempt): void {
    const entry = this.entryOf(attempt);
    if (!entry) return;
    this.held.push(entry);
    this.trim();
    // A full batch is written at once, unless writing is failing: then only the timer tries again, so
    // an outage does not turn every call into another write.
    if (this.held.length >= BATCH && !this.failing) void this.flush();
  }

  /** An attempt as its row, if it was made for a consent, run or payment (not an institutions refresh). */
  private entryOf(attempt: UpstreamAttempt): RecordedCall | undefined {
    const subject = currentContext()?.subject;
    if (!subject || !(subject.consentId || subject.syncRunId || subject.paymentId)) return undefined;
    return {
      merchantId: subject.merchantId,
      consentId: subject.consentId ?? null,
      syncRunId: subject.syncRunId ?? null,
      paymentId: subject.paymentId ?? null,
      operation: fit(attempt.operation, CODE_MAX) ?? '',
      institutionId: fit(attempt.institutionId ?? subject.institutionId, TEXT_MAX),
      status: attempt.status ?? null,
      errorCode: fit(attempt.errorKind, CODE_MAX),
      durationMs: attempt.durationMs,
      attempt: attempt.attempt,
      tracingId: fit(attempt.tracingId, TEXT_MAX),
      at: attempt.startedAt,
    };
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
      } catch (error) {
        // Postgres away: all held. Refused for what it holds: each row alone, so one Postgres cannot take
        // is dropped (counted) rather than held, and retried, for ever with the rest and all behind it.
        const left = dependencyFailureOf(error) ? batch : await this.writeOneByOne(batch, error);
        if (left.length > 0) {
          this.hold(left, error);
          return;
        }
      }
      if (this.failing) this.logger.info('upstream call log written again');
      this.failing = false;
    }
  }

  /** Held again, oldest first, for the next tick. */
  private hold(calls: RecordedCall[], error: unknown): void {
    this.held.unshift(...calls);
    this.trim();
    this.noteFailing(error);
  }

  /** From now on attempts are held, not written one by one, until a batch is written; said once. */
  private noteFailing(error: unknown): void {
    if (!this.failing) this.logger.warn({ err: error }, 'upstream call log cannot be written; held');
    this.failing = true;
  }

  /** Writes a refused batch a row at a time; answers the rows left to hold when Postgres goes away meanwhile. */
  private async writeOneByOne(batch: RecordedCall[], batchError: unknown): Promise<RecordedCall[]> {
    let refused = 0;
    for (const [i, call] of batch.entries()) {
      try {
        await this.calls.insertBatch([call]);
      } catch (error) {
        if (dependencyFailureOf(error)) return batch.slice(i);
        refused += 1;
      }
    }
    if (refused > 0) {
      this.dropped.inc(refused);
      this.logger.error({ err: batchError, refused }, 'upstream call log entries Postgres refused; dropped');
    }
    return [];
  }

  private trim(): void {
    const over = this.held.length - MAX_HELD_CALLS;
    if (over <= 0) return;
    this.held.splice(0, over);
    this.dropped.inc(over);
  }
}
