import type { Job, JobsOptions } from 'bullmq';
import type { Tuning } from '#libs/config';

/** Every queue of the system. Workers and producers use these names and nothing else. */
export const QueueName = {
  Maintenance: 'maintenance',
  Consents: 'consents',
  Sync: 'sync',
  Events: 'events',
  Payments: 'payments',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

/**
 * The typed job catalogue: job name → its queue, payload and result. A processor handles exactly the
 * names whose queue it serves. Kept whole: the jobs and their definitions (JOB_DEFINITIONS) are one table.
 */
export interface JobCatalogue {
  /** Round trip through the queue: proves a worker is consuming (ping.cli.ts, used by `npm start`, and the tests). */
  'maintenance.ping': {
    queue: typeof QueueName.Maintenance;
    payload: { sentAt: string };
    result: { pid: number; receivedAt: string };
  };
  /** Refreshes the institutions cache from the upstream (on a schedule, one per deployment). */
  'maintenance.refresh-institutions': {
    queue: typeof QueueName.Maintenance;
    payload: Record<string, never>;
    result: { count: number; deleted: number };
  };
  /**
   * Removes what is kept no longer: old relayed events with their delivery log, old processed webhooks,
   * the transactions change feed's old removals.
   */
  'maintenance.retention': {
    queue: typeof QueueName.Maintenance;
    payload: Record<string, never>;
    result: { events: number; inbound: number; transactionRemovals: number };
  };
  /**
   * Embedded flow: after the SCA code, polls the upstream until the consent is authorised or finally failed.
   * `userAddress`: the user who sent the code (held for the poll's two minutes), for whom the first syncs read.
   */
  'consents.poll-embedded': {
    queue: typeof QueueName.Consents;
    payload: { merchantId: string; consentId: string; userAddress?: string };
    result: { status: string };
  };
  /** Warns of and re-authorises consents near their expiry, and expires those past it (on a schedule). */
  'consents.scan-expiry': {
    queue: typeof QueueName.Consents;
    payload: Record<string, never>;
    result: {
      expired: number;
      warned: number;
      reauthorisationsRequested: number;
      reauthorisationsFailed: number;
    };
  };
  /**
   * Compares authorised consents with the upstream's view and applies what the bank changed, and restarts
   * the polls of embedded consents left awaiting the bank's outcome (on a schedule).
   */
  'consents.reconcile': {
    queue: typeof QueueName.Consents;
    payload: Record<string, never>;
    result: { checked: number; revoked: number; expired: number; failed: number; pollsResumed: number };
  };
  /**
   * Settles one consent at the time its state is due to change: EXPIRED at its `expiresAt` (enqueued,
   * delayed, when it is authorised), or a redirect callback whose answer was lost finished from the bank
   * (enqueued, delayed, as each callback starts). `check` names which, and keeps one job per purpose.
   */
  'consents.settle': {
    queue: typeof QueueName.Consents;
    payload: { merchantId: string; consentId: string; check: string };
    result: { status: string };
  };
  /** One sync run of one account (the run row was opened before the job was enqueued). */
  'sync.account': {
    queue: typeof QueueName.Sync;
    /** `attended`: asked for by a user present (their address and until when; SyncRequestsService). */
    payload: {
      merchantId: string;
      accountId: string;
      runId: string;
      attended?: { ipAddress: string; presentUntil: number };
    };
    result: { status: 'succeeded' | 'failed' | 'already-ended' };
  };
  /** Finds the accounts due for a sync and enqueues their runs (on a schedule, one per deployment). */
  'sync.dispatch': {
    queue: typeof QueueName.Sync;
    payload: Record<string, never>;
    result: { enqueued: number; resumed: number };
  };
  /** Applies one stored upstream webhook (inbox row) to our state and records the merchant events. */
  'events.fan-out': {
    queue: typeof QueueName.Events;
    payload: { inboundEventId: string };
    result: { outcome: string };
  };
  /** One attempt to deliver one event to one merchant endpoint; re-delays itself until it succeeds or gives up. */
  'events.deliver': {
    queue: typeof QueueName.Events;
    payload: { deliveryId: string };
    result: { outcome: string };
  };
  /** Re-enqueues inbox rows and deliveries whose jobs were lost, relays the outbox, disables failing endpoints. */
  'events.sweep': {
    queue: typeof QueueName.Events;
    payload: Record<string, never>;
    result: { inbox: number; deliveries: number; relayed: number; disabled: number };
  };
  /** Looks at payments without a final status whose check is due, and submits again those the bank never got. */
  'payments.poll-status': {
    queue: typeof QueueName.Payments;
    payload: Record<string, never>;
    result: { checked: number; submitted: number; finalised: number; failed: number };
  };
}

export type JobName = keyof JobCatalogue;
export type JobPayload<N extends JobName> = JobCatalogue[N]['payload'];
export type JobResult<N extends JobName> = JobCatalogue[N]['result'];
export type JobOf<N extends JobName> = Job<JobPayload<N>, JobResult<N>, N>;

/** Defaults applied to every job unless its definition says otherwise. */
const BASE_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * A job scheduled every few seconds: one attempt, as the next tick is its retry, and its runs kept an
 * hour (failures a day) so thousands of ticks do not pile up in Redis.
 */
const TICK_OPTIONS: JobsOptions = {
  ...BASE_OPTIONS,
  attempts: 1,
  removeOnComplete: { age: 3600, count: 100 },
  removeOnFail: { age: 24 * 3600 },
};

/** What the catalogue says of one job: its queue, its options, how repeats of it collapse, its schedule. */
export interface JobDefinition<N extends JobName> {
  queue: JobCatalogue[N]['queue'];
  options: JobsOptions;
  /**
   * The job id for a payload: BullMQ keeps one job per id, so every enqueue of the same work (a burst, a
   * retried request, two api processes) collapses into one job. Readable (`<name>.<key>`), never a ':'.
   * Absent: every enqueue is a new job.
   */
  dedupeId?: (payload: JobPayload<N>) => string;
  /**
   * Run on an interval by the deployment. Only a job without a payload can be: its scheduler enqueues `{}`.
   * Registered (and restored when Redis forgot it) by the worker's JobSchedulesBootstrap, never by a processor.
   */
  schedule?: JobPayload<N> extends Record<string, never> ? JobSchedule : never;
}

/** A tuning value that is a duration: in minutes or in seconds, as its name says. */
export type Interval = {
  [K in keyof Tuning]: K extends `${string}Minutes` | `${string}Seconds` ? K : never;
}[keyof Tuning];

/**
 * One BullMQ job scheduler, under the job's name: every worker upserts it under that fixed id, so the
 * deployment runs the job once per interval however many workers start; operators and tests know it by it.
 */
export interface JobSchedule {
  /**
   * The tuning value that sets the interval. 0: this worker leaves the scheduler as it is (one registered
   * before, or by another worker, stays): the setting says "not scheduled here", not "never".
   */
  every: Interval;
}

export const JOB_DEFINITIONS: { readonly [N in JobName]: JobDefinition<N> } = {
  'maintenance.ping': {
    queue: QueueName.Maintenance,
    options: {
      ...BASE_OPTIONS,
      attempts: 1,
      removeOnComplete: { age: 3600, count: 100 },
      removeOnFail: { age: 3600 },
    },
  },
  'maintenance.refresh-institutions': {
    queue: QueueName.Maintenance,
    options: { ...BASE_OPTIONS, attempts: 3, removeOnComplete: { age: 24 * 3600, count: 50 } },
    schedule: { every: 'institutionsRefreshMinutes' },
  },
  'maintenance.retention': {
    queue: QueueName.Maintenance,
    // Each batch commits on its own: a repeat, or two workers at once, remove each row once.
    options: { ...BASE_OPTIONS, attempts: 3, removeOnComplete: { age: 7 * 24 * 3600, count: 100 } },
    schedule: { every: 'retentionSweepMinutes' },
  },
  'consents.poll-embedded': {
    queue: QueueName.Consents,
    // The poll itself keeps to a deadline; attempts only cover a crashed worker or an upstream outage,
    // and each attempt re-checks the local status first, so a repeat is harmless.
    options: { ...BASE_OPTIONS, attempts: 3, backoff: { type: 'exponential', delay: 2_000 } },
    // One poll per consent: a repeated sca-code submission collapses into the same job.
    dedupeId: ({ consentId }) => `consents.poll-embedded.${consentId}`,
  },
  'consents.settle': {
    queue: QueueName.Consents,
    // A check that meets Postgres away is tried again for about half an hour (its purpose is outages);
    // removed once done, so the same check of a later round (another callback) is a new job.
    options: {
      ...BASE_OPTIONS,
      attempts: 8,
      backoff: { type: 'exponential', delay: 15_000 },
      removeOnComplete: true,
    },
    dedupeId: ({ consentId, check }) => `consents.settle.${consentId}.${check}`,
  },
  'consents.scan-expiry': {
    queue: QueueName.Consents,
    options: { ...BASE_OPTIONS, attempts: 3, removeOnComplete: { age: 7 * 24 * 3600, count: 100 } },
    schedule: { every: 'consentExpiryScanMinutes' },
  },
  'consents.reconcile': {
    queue: QueueName.Consents,
    options: { ...BASE_OPTIONS, attempts: 1, removeOnComplete: { age: 7 * 24 * 3600, count: 100 } },
    schedule: { every: 'consentReconcileMinutes' },
  },
  'sync.account': {
    queue: QueueName.Sync,
    // 5xx and timeouts retry with backoff (the upstream client has already retried within the call); a 429
    // is delayed by its Retry-After without spending an attempt; a consent that is gone fails at once.
    options: { ...BASE_OPTIONS, attempts: 8, backoff: { type: 'exponential', delay: 2_000 } },
    // Per run, not per account: a finished run's job must not block the account's next run, and every
    // enqueue of one run (dispatcher, manual request, first sync) collapses into one job.
    dedupeId: ({ runId }) => `sync.account.${runId}`,
  },
  'sync.dispatch': {
    queue: QueueName.Sync,
    options: TICK_OPTIONS,
    schedule: { every: 'syncDispatchEverySeconds' },
  },
  'events.fan-out': {
    queue: QueueName.Events,
    // Fan-out re-reads the inbox row under a lock and does nothing once it is processed: a repeat is harmless.
    // The inbox row is the record (and the sweeper re-enqueues it while unprocessed): finished jobs go, so
    // the same id can be enqueued again after a job that ran out of attempts.
    options: {
      ...BASE_OPTIONS,
      attempts: 8,
      backoff: { type: 'exponential', delay: 2_000 },
      removeOnComplete: true,
      removeOnFail: true,
    },
    dedupeId: ({ inboundEventId }) => `events.fan-out.${inboundEventId}`,
  },
  'events.deliver': {
    queue: QueueName.Events,
    // The row is the record: a failed HTTP attempt re-delays the job itself (without spending an attempt)
    // until the row says delivered or given up. Attempts cover crashes and database outages only; a job
    // that runs out of them is removed, and the sweeper enqueues the still-pending row again.
    options: {
      ...BASE_OPTIONS,
      attempts: 5,
      backoff: { type: 'exponential', delay: 5_000 },
      removeOnComplete: true,
      removeOnFail: true,
    },
    // While a delivery's job exists (waiting, delayed or running), enqueueing it again is a no-op.
    dedupeId: ({ deliveryId }) => `events.deliver.${deliveryId}`,
  },
  'events.sweep': {
    queue: QueueName.Events,
    options: TICK_OPTIONS,
    schedule: { every: 'eventsSweepEverySeconds' },
  },
  'payments.poll-status': {
    queue: QueueName.Payments,
    // A round claims its own payments and checks each on its own schedule: a lost round is the next one.
    options: TICK_OPTIONS,
    schedule: { every: 'paymentStatusPollSeconds' },
  },
};

/** The job names a queue serves. */
export type JobNameOf<Q extends QueueName> = {
  [N in JobName]: JobCatalogue[N]['queue'] extends Q ? N : never;
}[JobName];

export const ALL_QUEUES: readonly QueueName[] = Object.values(QueueName);
export const ALL_JOB_NAMES = Object.keys(JOB_DEFINITIONS) as JobName[];
