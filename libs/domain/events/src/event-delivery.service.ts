import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type Agent, request } from 'undici';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { MerchantId } from '#libs/context';
import { webhookHeaders } from '#libs/crypto';
import { DomainError, ErrorCode } from '#libs/errors';
import { isUuid, uuidV7 } from '#libs/ids';
import { type AppLogger, LOGGER, Metrics } from '#libs/observability';
import { deliveryAgent, refusedLiteralAddress } from './delivery-target.js';
import { ENDPOINT_TEST_EVENT, type MerchantEventWire } from './event-catalogue.js';
import { EventDeliveryMetrics } from './event-delivery.metrics.js';
import { EventDeliveryRepository } from './event-delivery.repository.js';
import { EventEndpointRepository } from './event-endpoint.repository.js';

const USER_AGENT = 'open-banking-bff-events/1.0';
const MAX_DELAY_MS = 3_600_000;

export type DeliveryOutcome =
  | { outcome: 'delivered' | 'given-up' | 'skipped' }
  /** Not yet, or failed and retried later: the job comes back at `retryAt`. */
  | { outcome: 'retry' | 'not-due'; retryAt: Date };

/** A test event and what its one attempt met: nothing of it is recorded. */
export interface TestDelivery {
  event: MerchantEventWire & { type: typeof ENDPOINT_TEST_EVENT.type; data: { endpointId: string } };
  delivered: boolean;
  /** The endpoint's HTTP status; null when it gave none (refused, unreachable, timed out). */
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** The delay before attempt `n + 1` after `n` failures: doubling from the base, capped, ±20% jitter. */
export function retryDelayMs(failures: number, baseSeconds: number, random = Math.random): number {
  const exponential = Math.min(baseSeconds * 1000 * 2 ** Math.max(0, failures - 1), MAX_DELAY_MS);
  return Math.round(exponential * (0.8 + 0.4 * random()));
}

/**
 * One attempt of one delivery: sign the event (Standard Webhooks, with every secret that signs now, so an
 * endpoint mid-rotation verifies either), POST it, record what happened, and say when to come back.
 */
@Injectable()
export class EventDeliveryService implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly metrics: EventDeliveryMetrics;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly deliveries: EventDeliveryRepository,
    private readonly endpoints: EventEndpointRepository,
    metrics: Metrics,
  ) {
    this.agent = deliveryAgent(config.events.allowPrivateEndpoints);
    this.metrics = new EventDeliveryMetrics(metrics.registry);
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  async attempt(deliveryId: string, now = new Date()): Promise<DeliveryOutcome> {
    const work = await this.deliveries.work(deliveryId);
    if (!work || work.status !== 'PENDING') return { outcome: 'skipped' };
    // A manual retry or the sweeper may enqueue a delivery ahead of its time: wait for it.
    if (work.nextAttemptAt && work.nextAttemptAt.getTime() > now.getTime() + 1_000) {
      return { outcome: 'not-due', retryAt: work.nextAttemptAt };
    }
    // Left as it is, not counted as an attempt: the sweep sends it once the merchant is enabled.
    if (work.merchantDisabled) return { outcome: 'skipped' };
    if (work.endpoint.disabled) {
      await this.deliveries.failForDisabledEndpoint(work.id, work.attempts, now);
      return { outcome: 'skipped' };
    }

    const result = await this.send(
      work.event,
      work.endpoint.url,
      this.endpoints.secretsOf(work.endpoint, now),
    );
    const at = new Date();
    if (result.ok) {
      await this.deliveries.recordAttempt(work.id, work.attempts, {
        at,
        responseStatus: result.status,
        error: null,
        delivered: true,
        nextAttemptAt: null,
      });
      // Always (the SQL skips a healthy endpoint): a failure recorded by a concurrent attempt after this one
      // read the endpoint must not outlive this success.
      await this.endpoints.markAnswering(work.endpointId);
      this.metrics.delivered(work.eventCreatedAt, at);
      return { outcome: 'delivered' };
    }
    const deadline = work.eventCreatedAt.getTime() + this.config.events.deliveryRetryHours * 3_600_000;
    const retryAt = new Date(
      at.getTime() + retryDelayMs(work.attempts + 1, this.config.tuning.eventDeliveryBackoffSeconds),
    );
    const giveUp = retryAt.getTime() > deadline;
    const recorded = await this.deliveries.recordAttempt(work.id, work.attempts, {
      at,
      responseStatus: result.status,
      error: result.error,
      delivered: false,
      nextAttemptAt: giveUp ? null : retryAt,
    });
    if (!work.endpoint.failing) await this.endpoints.markFailing(work.endpointId, at);
    this.metrics.attempted(giveUp ? 'given_up' : 'retrying');
    if (giveUp) {
      this.logger.warn(
        {
          deliveryId,
          endpointId: work.endpointId,
          eventId: work.event.id,
          eventRequestId: work.eventRequestId,
          attempts: work.attempts + 1,
        },
        'event delivery given up',
      );
      return { outcome: 'given-up' };
    }
    // Another attempt of the same delivery recorded first: it owns the schedule now.
    return recorded ? { outcome: 'retry', retryAt } : { outcome: 'skipped' };
  }

  /**
   * Sends the endpoint an `endpoint.test` event now, signed as every delivery is, once (no retry), and
   * answers what happened. A disabled endpoint is tested too: that is how a merchant checks a fix before
   * enabling it. Its health (failing since) is left as it is: only real deliveries move it.
   */
  async sendTest(merchantId: MerchantId, endpointId: string): Promise<TestDelivery> {
    const endpoint = isUuid(endpointId) ? await this.endpoints.findSealed(merchantId, endpointId) : null;
    if (!endpoint) throw new DomainError(ErrorCode.NOT_FOUND, 'Event endpoint not found.');
    const event: TestDelivery['event'] = {
      id: uuidV7(),
      type: ENDPOINT_TEST_EVENT.type,
      createdAt: new Date().toISOString(),
      userId: null,
      data: { endpointId },
    };
    const started = performance.now();
    const result = await this.send(event, endpoint.url, this.endpoints.secretsOf(endpoint, new Date()));
    return {
      event,
      delivered: result.ok,
      responseStatus: result.status,
      error: result.error,
      durationMs: Math.round(performance.now() - started),
    };
  }

  private async send(
    event: MerchantEventWire,
    url: string,
    secrets: string[],
  ): Promise<{ ok: boolean; status: number | null; error: string | null }> {
    const body = JSON.stringify(event);
    const refused = refusedLiteralAddress(new URL(url), this.config.events.allowPrivateEndpoints);
    if (refused) return { ok: false, status: null, error: `refused: ${refused}` };
    const headers = webhookHeaders({
      id: event.id,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      secrets,
    });
    const timeout = this.config.tuning.eventDeliveryTimeoutMs;
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
        body,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
      });
      // The answer's body is not needed: drained (bounded), so the connection can be reused.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      const redirected = response.statusCode >= 300 && response.statusCode < 400;
      return {
        ok,
        status: response.statusCode,
        error: ok ? null : redirected ? 'redirects are not followed' : `answered ${response.statusCode}`,
      };
    } catch (error) {
      return { ok: false, status: null, error: describe(error, timeout) };
    }
  }
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = (error as { code?: unknown }).code ?? cause?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' ? `${code}: ${message}` : message).slice(0, 500);
}
