import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { within } from '#libs/core';
import { OutboxRelayService } from '#libs/domain/events';
import { type Dependency, dependencyFailureOf } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { CoalescedRuns } from '../coalesced-runs.js';

/** Without a notification (a dropped LISTEN connection), the relay still looks this often. */
const POLL_MS = 2_000;
/** Another relay held the lock: look again this soon, in case it looked before our events committed. */
const CONTENDED_RETRY_MS = 100;
const RECONNECT_MS = 1_000;
/** How long a stop waits for a relay round under way. */
const RUNNING_ROUND_WAIT_MS = 1_000;

/**
 * Runs the outbox relay in every worker: at once when Postgres announces committed events (LISTEN on the
 * channel the outbox's insert notifies, delivered only at commit), and on a short poll in case a
 * notification was missed. Runs never overlap within a process; across processes the relay's own lock
 * lets one work while the others skip.
 */
@Injectable()
export class OutboxRelayListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private client: pg.Client | undefined;
  private readonly rounds = new CoalescedRuns(
    () => this.run(),
    () => !this.stopped,
  );
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The dependency the last round failed on, so an outage is logged once (and its end once). */
  private outage: Dependency | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly relay: OutboxRelayService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // A round under way finishes, or is left behind: it may be waiting on a Redis or Postgres that is
    // away, and the stop has a budget. What it had not relayed, the next worker's first round relays.
    const round = this.rounds.underWay;
    if (round) await within(round, RUNNING_ROUND_WAIT_MS, () => undefined);
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    // Postgres itself: through a transaction pooler the LISTEN would end with its transaction.
    const client = new pg.Client({ connectionString: this.config.database.directUrl });
    let lost = false;
    // One way back, whichever of the error event and the failed call notices the loss first.
    const reconnect = (err: unknown, message: string) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ err }, message);
      setTimeout(() => void this.listen(), RECONNECT_MS).unref();
    };
    client.on('notification', () => this.rounds.request());
    client.on('error', (err) =>
      reconnect(err, 'outbox relay: LISTEN connection lost; polling until it is back'),
    );
    try {
      await client.connect();
      await client.query('LISTEN merchant_events');
    } catch (err) {
      return reconnect(err, 'outbox relay: cannot LISTEN; polling');
    }
    // Shut down while connecting: this connection must not outlive the process's other ones.
    if (this.stopped || lost) return void client.end().catch(() => undefined);
    this.client = client;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.rounds.request(), delayMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    let next = POLL_MS;
    try {
      const { contended } = await this.relay.relayAll();
      if (contended) next = CONTENDED_RETRY_MS;
      if (this.outage) this.logger.info({ dependency: this.outage }, 'outbox relay running again');
      this.outage = undefined;
    } catch (err) {
      // An outage of Postgres or Redis is said once, not every poll; anything else is a bug, every time.
      const outage = dependencyFailureOf(err);
      if (!outage) this.logger.error({ err }, 'outbox relay failed; retrying');
      else if (!this.outage)
        this.logger.warn({ err, dependency: outage }, 'outbox relay waits: dependency away');
      this.outage = outage;
    }
    this.schedule(next);
  }
}
