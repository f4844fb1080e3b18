import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { verifyWebhook, type WebhookHeaderSource, WebhookVerificationError } from '#libs/crypto';
import { DomainError, ErrorCode } from '#libs/errors';
import { type AppLogger, currentTraceContext, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import { InboundEventRepository } from './inbound-event.repository.js';
import { UpstreamWebhookRepository } from './upstream-webhook.repository.js';

/**
 * The upstream does not publish its signature scheme; the one the receiver trusts is Standard Webhooks
 * (the sandbox's). It returns the sender's event id, or throws WebhookVerificationError; given no secret,
 * it still checks what needs none (headers, timestamp) before NO_MATCHING_SIGNATURE.
 */
const verify = (
  body: Buffer,
  headers: WebhookHeaderSource,
  secrets: readonly string[],
  toleranceSeconds: number,
): { id: string } => verifyWebhook(body, headers, secrets, { toleranceSeconds });

/** Verified secrets are cached this long; a registration made meanwhile is picked up on a miss. */
const SECRETS_TTL_MS = 5_000;
/**
 * Loads of the secrets begin at most this often, however many signatures match none (forgeries must not
 * hammer Postgres); a miss waits for the next load rather than being refused for the limit.
 */
const RELOAD_MIN_INTERVAL_MS = 250;

/** The secrets as a load found them: every one stored before `since` (performance.now()) is among them. */
interface LoadedSecrets {
  byApplication: Map<string, string[]>;
  since: number;
}

const REASONS: Record<WebhookVerificationError['reason'], string> = {
  MISSING_HEADER: 'is not signed (a webhook-id, webhook-timestamp or webhook-signature header is missing)',
  INVALID_TIMESTAMP: 'has a webhook-timestamp that is not a number of seconds',
  TIMESTAMP_TOO_OLD: 'is too old (webhook-timestamp outside the tolerance): a replay is refused',
  TIMESTAMP_TOO_NEW: 'is dated in the future (webhook-timestamp outside the tolerance)',
  NO_MATCHING_SIGNATURE:
    'has no signature made with a webhook secret registered for the application it names',
};

/** At most `max` UTF-16 units, never half a surrogate pair (Postgres refuses a lone one). */
const cut = (text: string, max: number) => text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '');

export interface ReceivedWebhook {
  eventId: string;
  /** True when the event was already stored: nothing changed. */
  duplicate: boolean;
}

/** What an event says about itself before it is verified: the application whose secrets verify it. */
type Claim = { applicationId: string; payload: Record<string, unknown> } | { refusal: DomainError };

const unauthenticated = (error: WebhookVerificationError) =>
  new DomainError(ErrorCode.UNAUTHENTICATED, `The webhook ${REASONS[error.reason]}.`);

const invalid = (message: string, field: string, issue: string) =>
  new DomainError(ErrorCode.VALIDATION_FAILED, message, { details: [{ field, issue }] });

/**
 * The upstream webhook receiver's work: verify the signature over the exact bytes received, with the
 * secrets of the application the event names (never another's), store the event in the inbox (once per
 * event id) with that application, and leave its effects to the fan-out job, which applies them only to
 * that application's consents and payments. The caller acknowledges only after this returns: a stored
 * event is never lost. Kept whole: verifying and the secrets cache it reloads on a miss are one loop.
 */
@Injectable()
export class WebhookReceiverService {
  private secrets: LoadedSecrets | undefined;
  /** The one load under way: every request needing secrets meanwhile shares it. */
  private loading: Promise<LoadedSecrets> | undefined;
  private lastLoadAt = Number.NEGATIVE_INFINITY;
  /** The wait, shared by every miss, until the next load may begin. */
  private nextLoadSlot: Promise<void> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly registrations: UpstreamWebhookRepository,
    private readonly inbox: InboundEventRepository,
    private readonly producer: JobProducerService,
  ) {}

  async receive(body: Buffer, headers: WebhookHeaderSource): Promise<ReceivedWebhook> {
    if (body.length > this.config.tuning.webhookMaxBodyBytes) {
      throw new DomainError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `A webhook body may be at most ${this.config.tuning.webhookMaxBodyBytes} bytes.`,
      );
    }
    // The body is read for one thing before it is verified: the application whose secrets verify it.
    // Nothing of it is acted on unless the signature is that application's.
    const claim = this.claimOf(body);
    if ('refusal' in claim) this.refuseUnverifiable(body, headers, claim.refusal);
    const { id } = await this.verified(body, headers, claim.applicationId);
    if (id.length > 255) {
      throw invalid(
        'The webhook body has a webhook-id longer than 255 characters.',
        'body',
        'has a webhook-id longer than 255 characters',
      );
    }
    const { payload } = claim;
    const traceContext = currentTraceContext();
    const storedId = await this.inbox.store({
      eventId: id,
      type: typeof payload.type === 'string' ? cut(payload.type, 128) : null,
      // Registered, so it fits its column: the verified claim is stored whole, for the fan-out to match.
      applicationId: claim.applicationId,
      payload: body.toString('utf8'),
      traceContext,
    });
    if (storedId) this.enqueueFanOut(storedId, traceContext);
    return { eventId: id, duplicate: storedId === null };
  }

  private toEnqueue: { id: string; traceContext: string | null }[] = [];

  /**
   * Not awaited by the answer: the event is stored, and the sweeper enqueues it if this is lost. Events
   * stored in the same tick go to Redis in one pipelined addBulk, each job continuing the trace of the
   * request that received its event (not the first request's of the tick).
   */
  private enqueueFanOut(inboundEventId: string, traceContext: string | null): void {
    this.toEnqueue.push({ id: inboundEventId, traceContext });
    if (this.toEnqueue.length > 1) return;
    setImmediate(() => {
      const stored = this.toEnqueue;
      this.toEnqueue = [];
      this.producer
        .enqueueMany(
          'events.fan-out',
          stored.map(({ id }) => ({ inboundEventId: id })),
          stored.map((e) => e.traceContext),
        )
        .catch((err: unknown) =>
          this.logger.warn({ err, count: stored.length }, 'fan-out not enqueued; the sweeper will'),
        );
    });
  }

  /**
   * Verifies with the secrets registered for the application. A signature no cached secret matches is
   * checked again with secrets loaded after the event arrived, so a registration or secret reset stored
   * before then (by this process or another) verifies at once; only a signature no secret stored by its
   * arrival matches is refused. Misses share loads, which begin at most every RELOAD_MIN_INTERVAL_MS.
   */
  private async verified(
    body: Buffer,
    headers: WebhookHeaderSource,
    applicationId: string,
  ): Promise<{ id: string }> {
    const arrivedAt = performance.now();
    let loaded = await this.cachedSecrets();
    for (;;) {
      try {
        const secrets = loaded.byApplication.get(applicationId) ?? [];
        return verify(body, headers, secrets, this.config.tuning.webhookToleranceSeconds);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        if (error.reason !== 'NO_MATCHING_SIGNATURE' || loaded.since >= arrivedAt) {
          throw unauthenticated(error);
        }
        loaded = await this.secretsLoadedSince(arrivedAt);
      }
    }
  }

  /**
   * A body naming no application has no secret to be verified with, so it is refused: 401 when the
   * checks that need no secret fail (unsigned, stale, future-dated), as any unsigned request is; else
   * the body's own 400.
   */
  private refuseUnverifiable(body: Buffer, headers: WebhookHeaderSource, refusal: DomainError): never {
    try {
      verify(body, headers, [], this.config.tuning.webhookToleranceSeconds);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      if (error.reason !== 'NO_MATCHING_SIGNATURE') throw unauthenticated(error);
    }
    throw refusal;
  }

  /** The cached secrets, or, past their time to live, those of a load (the one under way, or a new one). */
  private async cachedSecrets(): Promise<LoadedSecrets> {
    const cached = this.secrets;
    if (cached && performance.now() - cached.since < SECRETS_TTL_MS) return cached;
    return this.loading ?? this.load();
  }

  /**
   * Secrets of a load begun at `since` or later: the latest such, or the one under way if it began in
   * time, or else the next, begun no sooner than RELOAD_MIN_INTERVAL_MS after the last.
   */
  private async secretsLoadedSince(since: number): Promise<LoadedSecrets> {
    for (;;) {
      if (this.secrets && this.secrets.since >= since) return this.secrets;
      if (this.loading) {
        const loaded = await this.loading;
        if (loaded.since >= since) return loaded;
        continue;
      }
      const wait = this.lastLoadAt + RELOAD_MIN_INTERVAL_MS - performance.now();
      if (wait <= 0) return this.load();
      this.nextLoadSlot ??= new Promise<void>((resolve) => setTimeout(resolve, wait)).finally(() => {
        this.nextLoadSlot = undefined;
      });
      await this.nextLoadSlot;
    }
  }

  /** Begins a load; the caller has checked that none is under way. */
  private load(): Promise<LoadedSecrets> {
    const since = performance.now();
    this.lastLoadAt = since;
    const graceMs = this.config.tuning.upstreamWebhookSecretGraceHours * 3_600_000;
    const loading = this.registrations
      .secretsByApplication(new Date(Date.now() - graceMs))
      .then((byApplication) => (this.secrets = { byApplication, since }))
      .finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    this.loading = loading;
    return loading;
  }

  /** The application the event names, with the parsed body; or why the body names none (a 400). */
  private claimOf(body: Buffer): Claim {
    const bodyIssue = (issue: string) => ({
      refusal: invalid(`The webhook body ${issue}.`, 'body', issue),
    });
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      return bodyIssue('is not JSON');
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      return bodyIssue('is not a JSON object');
    }
    const { applicationId } = payload as Record<string, unknown>;
    if (typeof applicationId !== 'string' || applicationId === '') {
      return {
        refusal: invalid(
          'The webhook does not name its application (applicationId), so no webhook secret can verify it.',
          'applicationId',
          'is missing: the event must name its application',
        ),
      };
    }
    return { applicationId, payload: payload as Record<string, unknown> };
  }
}
