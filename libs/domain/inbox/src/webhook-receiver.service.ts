import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { WebhookVerificationError, verifyWebhook, type WebhookHeaderSource } from '#libs/crypto';
import { DomainError, ErrorCode } from '#libs/errors';
import { LOGGER, type AppLogger } from '#libs/observability';
import { JobProducer } from '#libs/queue';
import { InboundEventRepository } from './inbound-event.repository.js';
import { UpstreamWebhookRepository } from './upstream-webhook.repository.js';

/**
 * Signature schemes by name (WEBHOOK_SIGNATURE_SCHEME): the upstream does not publish its own, so the
 * receiver names the one it trusts. Each returns the sender's event id, or throws WebhookVerificationError.
 */
type Verifier = (
  body: Buffer,
  headers: WebhookHeaderSource,
  secrets: readonly string[],
  toleranceSeconds: number,
) => { id: string };

const VERIFIERS: Record<AppConfig['events']['signatureScheme'], Verifier> = {
  'standard-webhooks': (body, headers, secrets, toleranceSeconds) =>
    verifyWebhook(body, headers, secrets, { toleranceSeconds }),
};

/** Verified secrets are cached this long; a registration made meanwhile is picked up on a miss. */
const SECRETS_TTL_MS = 5_000;
/** A signature that matches no cached secret reloads them at most this often (forgeries must not hammer Postgres). */
const RELOAD_MIN_INTERVAL_MS = 1_000;

const REASONS: Record<WebhookVerificationError['reason'], string> = {
  MISSING_HEADER: 'is not signed (a webhook-id, webhook-timestamp or webhook-signature header is missing)',
  INVALID_TIMESTAMP: 'has a webhook-timestamp that is not a number of seconds',
  TIMESTAMP_TOO_OLD: 'is too old (webhook-timestamp outside the tolerance): a replay is refused',
  TIMESTAMP_TOO_NEW: 'is dated in the future (webhook-timestamp outside the tolerance)',
  NO_MATCHING_SIGNATURE: 'has no signature made with a registered webhook secret',
};

/** At most `max` UTF-16 units, never half a surrogate pair (Postgres refuses a lone one). */
const cut = (text: string, max: number) => text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '');

export interface ReceivedWebhook {
  eventId: string;
  /** True when the event was already stored: nothing changed. */
  duplicate: boolean;
}

/**
 * The upstream webhook receiver's work: verify the signature over the exact bytes received before
 * anything else reads them, store the event in the inbox (once per event id), and leave its effects to
 * the fan-out job. The caller acknowledges only after this returns: a stored event is never lost.
 */
@Injectable()
export class WebhookReceiver {
  private readonly verify: Verifier;
  private secrets: { values: string[]; loadedAt: number } | undefined;
  private lastReloadAt = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly registrations: UpstreamWebhookRepository,
    private readonly inbox: InboundEventRepository,
    private readonly producer: JobProducer,
  ) {
    this.verify = VERIFIERS[config.events.signatureScheme];
  }

  async receive(body: Buffer, headers: WebhookHeaderSource): Promise<ReceivedWebhook> {
    if (body.length > this.config.events.webhookMaxBodyBytes) {
      throw new DomainError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `A webhook body may be at most ${this.config.events.webhookMaxBodyBytes} bytes.`,
      );
    }
    const { id } = await this.verified(body, headers);
    const payload = this.parse(body, id);
    const storedId = await this.inbox.store({
      eventId: id,
      type: typeof payload.type === 'string' ? cut(payload.type, 128) : null,
      applicationId: typeof payload.applicationId === 'string' ? cut(payload.applicationId, 255) : null,
      payload: body.toString('utf8'),
    });
    if (storedId) this.enqueueFanOut(storedId);
    return { eventId: id, duplicate: storedId === null };
  }

  private toEnqueue: string[] = [];

  /**
   * Not awaited by the answer: the event is stored, and the sweeper enqueues it if this is lost. Events
   * stored in the same tick go to Redis in one pipelined addBulk.
   */
  private enqueueFanOut(inboundEventId: string): void {
    this.toEnqueue.push(inboundEventId);
    if (this.toEnqueue.length > 1) return;
    setImmediate(() => {
      const ids = this.toEnqueue;
      this.toEnqueue = [];
      this.producer
        .enqueueMany(
          'events.fan-out',
          ids.map((id) => ({ inboundEventId: id })),
        )
        .catch((err: unknown) =>
          this.logger.warn({ err, count: ids.length }, 'fan-out not enqueued; the sweeper will'),
        );
    });
  }

  private async verified(body: Buffer, headers: WebhookHeaderSource): Promise<{ id: string }> {
    let secrets = await this.currentSecrets(false);
    for (;;) {
      try {
        if (secrets.length === 0) {
          throw new WebhookVerificationError('NO_MATCHING_SIGNATURE', 'no webhook secret is registered');
        }
        return this.verify(body, headers, secrets, this.config.events.webhookToleranceSeconds);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        const now = Date.now();
        if (error.reason === 'NO_MATCHING_SIGNATURE' && now - this.lastReloadAt >= RELOAD_MIN_INTERVAL_MS) {
          this.lastReloadAt = now;
          secrets = await this.currentSecrets(true);
          continue;
        }
        throw new DomainError(ErrorCode.UNAUTHENTICATED, `The webhook ${REASONS[error.reason]}.`);
      }
    }
  }

  private async currentSecrets(reload: boolean): Promise<string[]> {
    const now = Date.now();
    if (!reload && this.secrets && now - this.secrets.loadedAt < SECRETS_TTL_MS) return this.secrets.values;
    const graceMs = this.config.events.upstreamSecretGraceHours * 3_600_000;
    const values = await this.registrations.verificationSecrets(new Date(now - graceMs));
    this.secrets = { values, loadedAt: now };
    return values;
  }

  private parse(body: Buffer, id: string): Record<string, unknown> {
    const invalid = (issue: string) =>
      new DomainError(ErrorCode.VALIDATION_FAILED, `The webhook body ${issue}.`, {
        details: [{ field: 'body', issue }],
      });
    if (id.length > 255) throw invalid('has a webhook-id longer than 255 characters');
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      throw invalid('is not JSON');
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
      throw invalid('is not a JSON object');
    return payload as Record<string, unknown>;
  }
}
