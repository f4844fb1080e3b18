import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  ResetRegistryService,
  SandboxClockService,
  type SandboxEvent,
  SandboxEvents,
} from '../core/index.js';
import { postSigned } from './webhook.sender.js';
import { notificationTypesFor } from './webhook-categories.catalog.js';
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_RETRY_DELAYS_MS,
  type DeliveredEventPayload,
  type DeliveryRecord,
  type DeliveryTarget,
  type PublishOptions,
  type RetryPolicy,
} from './webhook-delivery.types.js';
import { WebhooksStore } from './webhooks.store.js';

/** The delivery log keeps the most recent deliveries only, so a long-running sandbox stays bounded. */
const MAX_LOGGED_DELIVERIES = 1_000;

interface Delivery {
  record: DeliveryRecord;
  body: string;
  timestampOffsetSeconds: number;
  attemptCount: number;
  generation: number;
  timer?: NodeJS.Timeout;
}

/**
 * Delivers every SandboxEvent to the application's webhooks subscribed to its category and to its
 * notification subscriptions, signed with Standard Webhooks headers, in the background, with retries.
 * Kept whole: the log, the timers and the generation that cancels them are one state.
 */
@Injectable()
export class WebhookDeliveryService implements OnModuleDestroy {
  private policy: RetryPolicy = {
    delaysMs: [...DEFAULT_RETRY_DELAYS_MS],
    timeoutMs: DEFAULT_ATTEMPT_TIMEOUT_MS,
  };
  private deliveries: Delivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inflight = new Set<AbortController>();
  /** Bumped by reset and shutdown, so an attempt already on the wire does not schedule a retry after them. */
  private generation = 0;

  constructor(
    private readonly store: WebhooksStore,
    private readonly clock: SandboxClockService,
    @Inject(LOGGER) private readonly logger: AppLogger,
    events: SandboxEvents,
    resets: ResetRegistryService,
  ) {
    events.subscribe((event) => {
      // The bus calls listeners inside the request that caused the event: never let delivery fail it.
      try {
        this.publish(event);
      } catch (error) {
        this.logger.error({ err: error, type: event.type }, 'sandbox webhooks: could not schedule an event');
      }
    });
    // The retry policy survives a restart; deliveries in flight and their log do not (nor would the
    // upstream's: a restart of the sandbox is an outage of its delivery workers).
    resets.register(
      () => {
        this.stopAll();
        this.deliveries = [];
        this.policy = { delaysMs: [...DEFAULT_RETRY_DELAYS_MS], timeoutMs: DEFAULT_ATTEMPT_TIMEOUT_MS };
      },
      {
        name: 'webhook-retry-policy',
        save: () => this.policy,
        load: (saved) => {
          this.policy = saved as RetryPolicy;
        },
      },
    );
  }

  onModuleDestroy(): void {
    this.stopAll();
  }

  getPolicy(): RetryPolicy {
    return { delaysMs: [...this.policy.delaysMs], timeoutMs: this.policy.timeoutMs };
  }

  setPolicy(policy: Partial<RetryPolicy>): RetryPolicy {
    this.policy = {
      delaysMs: policy.delaysMs ? [...policy.delaysMs] : this.policy.delaysMs,
      timeoutMs: policy.timeoutMs ?? this.policy.timeoutMs,
    };
    return this.getPolicy();
  }

  resetPolicy(): RetryPolicy {
    return this.setPolicy({ delaysMs: [...DEFAULT_RETRY_DELAYS_MS], timeoutMs: DEFAULT_ATTEMPT_TIMEOUT_MS });
  }

  list(filter: { eventId?: string; applicationId?: string } = {}): DeliveryRecord[] {
    return this.deliveries
      .map((d) => d.record)
      .filter(
        (r) =>
          (!filter.eventId || r.eventId === filter.eventId) &&
          (!filter.applicationId || r.applicationId === filter.applicationId),
      )
      .map((r) => ({ ...r, target: { ...r.target }, attempts: r.attempts.map((a) => ({ ...a })) }));
  }

  /** Stops the waiting retries of a deleted webhook or subscription at once. */
  cancelPending(applicationId: string, target: DeliveryTarget): void {
    for (const delivery of this.deliveries) {
      const { record } = delivery;
      if (record.state !== 'pending' || record.applicationId !== applicationId || !delivery.timer) continue;
      const same =
        record.target.kind === 'webhook'
          ? target.kind === 'webhook' && target.webhookId === record.target.webhookId
          : target.kind === 'notification' && target.eventTypeId === record.target.eventTypeId;
      if (!same) continue;
      clearTimeout(delivery.timer);
      this.timers.delete(delivery.timer);
      delivery.timer = undefined;
      record.state = 'cancelled';
      record.nextAttemptAt = undefined;
    }
  }

  /**
   * Picks the targets now (so a webhook registered later does not receive an older event) and starts
   * their deliveries on the next tick; returns at once.
   */
  publish(
    event: SandboxEvent,
    options: PublishOptions = {},
  ): { eventId: string; deliveries: DeliveryRecord[] } {
    const eventId = randomUUID();
    const createdAt = this.clock.now().toISOString();
    const copies = options.duplicate ? 2 : 1;
    const base = { id: eventId, createdAt, applicationId: event.applicationId, data: event.data };
    const started: Delivery[] = [];
    const start = (target: DeliveryTarget, payload: DeliveredEventPayload) => {
      for (let i = 0; i < copies; i += 1) {
        started.push(
          this.start(event, eventId, target, JSON.stringify(payload), options.timestampOffsetSeconds ?? 0),
        );
      }
    };

    for (const webhook of this.store.listWebhooks(event.applicationId)) {
      if (webhook.status !== 'active' || !webhook.categories.includes(event.type)) continue;
      start(
        { kind: 'webhook', webhookId: webhook.id },
        { ...base, type: event.type, ...(webhook.metadata ? { metadata: webhook.metadata } : {}) },
      );
    }
    for (const eventTypeId of notificationTypesFor(event.type)) {
      if (!this.store.getSubscription(event.applicationId, eventTypeId)) continue;
      start({ kind: 'notification', eventTypeId }, { ...base, type: eventTypeId });
    }
    return { eventId, deliveries: started.map((d) => ({ ...d.record })) };
  }

  private start(
    event: SandboxEvent,
    eventId: string,
    target: DeliveryTarget,
    body: string,
    offset: number,
  ): Delivery {
    const now = this.clock.now().toISOString();
    const delivery: Delivery = {
      record: {
        id: randomUUID(),
        eventId,
        eventType: event.type,
        applicationId: event.applicationId,
        target,
        state: 'pending',
        createdAt: now,
        nextAttemptAt: now,
        attempts: [],
      },
      body,
      timestampOffsetSeconds: offset,
      attemptCount: 0,
      generation: this.generation,
    };
    this.deliveries.push(delivery);
    if (this.deliveries.length > MAX_LOGGED_DELIVERIES) this.deliveries.shift();
    this.schedule(delivery, 0);
    return delivery;
  }

  private schedule(delivery: Delivery, delayMs: number): void {
    delivery.record.nextAttemptAt = new Date(this.clock.nowMs() + delayMs).toISOString();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      delivery.timer = undefined;
      void this.attempt(delivery);
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
    delivery.timer = timer;
  }

  /** The URLs and secrets of the target now, or undefined when it was deleted meanwhile. */
  private resolve(record: DeliveryRecord): { urls: string[]; secrets: string[] } | undefined {
    if (record.target.kind === 'webhook') {
      const webhook = this.store.getWebhook(record.applicationId, record.target.webhookId);
      if (!webhook || webhook.status !== 'active') return undefined;
      const urls = [webhook.callbackUrl.main.url];
      if (webhook.callbackUrl.backup?.url) urls.push(webhook.callbackUrl.backup.url);
      return { urls, secrets: this.store.signingSecrets(webhook) };
    }
    const subscription = this.store.getSubscription(record.applicationId, record.target.eventTypeId);
    return subscription ? { urls: [subscription.notification.url], secrets: [] } : undefined;
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { record } = delivery;
    if (delivery.generation !== this.generation) return;
    const target = this.resolve(record);
    if (!target) {
      record.state = 'cancelled';
      record.nextAttemptAt = undefined;
      return;
    }
    delivery.attemptCount += 1;
    record.nextAttemptAt = undefined;
    for (const url of target.urls) {
      const outcome = await this.send(delivery, url, target.secrets);
      if (delivery.generation !== this.generation) return;
      if (outcome.ok) {
        record.state = 'delivered';
        return;
      }
      // The backup URL is for a main URL that does not respond; an HTTP error is an answer.
      if (outcome.statusCode !== undefined) break;
    }
    const delay = this.policy.delaysMs[delivery.attemptCount - 1];
    if (delay === undefined) {
      record.state = 'failed';
      this.logger.warn(
        { deliveryId: record.id, eventId: record.eventId, attempts: delivery.attemptCount },
        'sandbox webhooks: delivery given up',
      );
      return;
    }
    this.schedule(delivery, delay);
  }

  private async send(
    delivery: Delivery,
    url: string,
    secrets: string[],
  ): Promise<{ ok: boolean; statusCode?: number }> {
    const { ok, statusCode, attempt } = await postSigned(
      {
        url,
        eventId: delivery.record.eventId,
        body: delivery.body,
        secrets,
        timestampOffsetSeconds: delivery.timestampOffsetSeconds,
        attempt: delivery.attemptCount,
        startedAt: this.clock.now().toISOString(),
        timeoutMs: this.policy.timeoutMs,
      },
      this.inflight,
    );
    delivery.record.attempts.push(attempt);
    return { ok, statusCode };
  }

  private stopAll(): void {
    this.generation += 1;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.inflight) controller.abort();
    this.inflight.clear();
    for (const delivery of this.deliveries) {
      if (delivery.record.state === 'pending') {
        delivery.record.state = 'cancelled';
        delivery.record.nextAttemptAt = undefined;
      }
    }
  }
}
