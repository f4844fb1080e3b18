import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { generateWebhookSecret } from '#libs/crypto';
import { ResetRegistryService, SandboxClockService } from '../core/index.js';

export interface CallbackUrl {
  main: { url: string };
  backup?: { url: string };
}

export interface WebhookRecord {
  id: string;
  applicationId: string;
  categories: string[];
  callbackUrl: CallbackUrl;
  metadata?: Record<string, string>;
  status: 'active' | 'paused';
  createdAt: string;
  secret: string;
  /** After a reset with a delay, the old secret still signs until `validUntilMs` (sandbox clock). */
  previousSecret?: { secret: string; validUntilMs: number };
}

export interface EventSubscriptionRecord {
  applicationId: string;
  eventTypeId: string;
  notification: { type: 'WEBHOOK'; url: string };
  createdAt: Date;
}

/** The upstream's registration limit (its 406, code 14007) per application. */
export const MAX_WEBHOOKS_PER_APPLICATION = 10;

/** Webhooks and deprecated event subscriptions, per application; in memory, cleared by the reset. */
@Injectable()
export class WebhooksStore {
  private webhooks = new Map<string, WebhookRecord>();
  private subscriptions = new Map<string, EventSubscriptionRecord>();

  constructor(
    private readonly clock: SandboxClockService,
    resets: ResetRegistryService,
  ) {
    resets.registerMaps(
      'webhooks',
      () => ({ webhooks: this.webhooks, subscriptions: this.subscriptions }),
      (maps) => {
        ({ webhooks: this.webhooks, subscriptions: this.subscriptions } = maps);
      },
    );
  }

  // ---- webhooks

  createWebhook(input: Omit<WebhookRecord, 'id' | 'status' | 'createdAt' | 'secret'>): WebhookRecord {
    const record: WebhookRecord = {
      ...input,
      id: randomUUID(),
      status: 'active',
      createdAt: this.clock.now().toISOString(),
      secret: generateWebhookSecret(),
    };
    this.webhooks.set(record.id, record);
    return record;
  }

  getWebhook(applicationId: string, id: string): WebhookRecord | undefined {
    const record = this.webhooks.get(id);
    return record?.applicationId === applicationId ? record : undefined;
  }

  listWebhooks(applicationId: string): WebhookRecord[] {
    return [...this.webhooks.values()].filter((w) => w.applicationId === applicationId);
  }

  deleteWebhook(applicationId: string, id: string): WebhookRecord | undefined {
    const record = this.getWebhook(applicationId, id);
    if (record) this.webhooks.delete(id);
    return record;
  }

  /** A new secret; the old one keeps signing alongside it for `graceSeconds` (0: not at all). */
  resetSecret(record: WebhookRecord, graceSeconds: number): WebhookRecord {
    record.previousSecret =
      graceSeconds > 0
        ? { secret: record.secret, validUntilMs: this.clock.nowMs() + graceSeconds * 1000 }
        : undefined;
    record.secret = generateWebhookSecret();
    return record;
  }

  /** The secrets a delivery is signed with now: the current one, then the old one while in its grace. */
  signingSecrets(record: WebhookRecord): string[] {
    const previous = record.previousSecret;
    return previous && previous.validUntilMs > this.clock.nowMs()
      ? [record.secret, previous.secret]
      : [record.secret];
  }

  // ---- deprecated event subscriptions: one per application and event type

  private key(applicationId: string, eventTypeId: string): string {
    return `${applicationId} ${eventTypeId}`;
  }

  createSubscription(
    record: Omit<EventSubscriptionRecord, 'createdAt'>,
  ): EventSubscriptionRecord | undefined {
    const key = this.key(record.applicationId, record.eventTypeId);
    if (this.subscriptions.has(key)) return undefined;
    const created = { ...record, createdAt: this.clock.now() };
    this.subscriptions.set(key, created);
    return created;
  }

  getSubscription(applicationId: string, eventTypeId: string): EventSubscriptionRecord | undefined {
    return this.subscriptions.get(this.key(applicationId, eventTypeId));
  }

  listSubscriptions(applicationId: string): EventSubscriptionRecord[] {
    return [...this.subscriptions.values()].filter((s) => s.applicationId === applicationId);
  }

  deleteSubscription(applicationId: string, eventTypeId: string): EventSubscriptionRecord | undefined {
    const record = this.getSubscription(applicationId, eventTypeId);
    if (record) this.subscriptions.delete(this.key(applicationId, eventTypeId));
    return record;
  }
}
