import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type Agent, request } from 'undici';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { MerchantId } from '#libs/context';
import { webhookHeaders } from '#libs/crypto';
import { DomainError, ErrorCode } from '#libs/errors';
import { uuidV7 } from '#libs/ids';
import { type AppLogger, LOGGER, Metrics } from '#libs/observability';
import { retryDelayMs } from './delivery-policy.js';
import { deliveryAgent, hostResolver, refusedLiteralAddress } from './delivery-target.js';
import type { AttemptExchange, DeliveryWork } from './delivery-views.js';
import { EndpointThrottle } from './endpoint-throttle.js';
import { ENDPOINT_TEST_EVENT, type MerchantEventWire } from './event-catalogue.js';
import { EventDeliveryMetrics } from './event-delivery.metrics.js';
import { EventDeliveryRepository } from './event-delivery.repository.js';
import { EventEndpointRepository } from './event-endpoint.repository.js';

const USER_AGENT = 'open-banking-bff-events/1.0';
/** How much of an answer's body the attempt log keeps. */
export const RESPONSE_EXCERPT_BYTES = 4 * 1024;
/** How much more of it is read (and dropped) so the connection can be reused; past that it is closed. */
const DRAIN_BYTES = 64 * 1024;

export type DeliveryOutcome =
  | { outcome: 'delivered' | 'given-up' | 'skipped' }
  /**
   * Not yet, failed and retried later, or held back by the endpoint's rate limit (no attempt made): the
   * job comes back at `retryAt`.
   */
  | { outcome: 'retry' | 'not-due' | 'throttled'; retryAt: Date };

/** One request to an endpoint: whether it counts as delivered, and what was sent and came back. */
type SendResult = { ok: boolean; exchange: AttemptExchange };

/** A test event and what its one attempt met: nothing of it is recorded. */
export interface TestDelivery {
  event: Omit<MerchantEventWire, 'type' | 'data'> & {
    type: typeof ENDPOINT_TEST_EVENT.type;
    data: { endpointId: string };
  };
  delivered: boolean;
  /** The endpoint's HTTP status; null when it gave none (refused, unreachable, timed out). */
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  /** As a delivery's attempt log shows an attempt. */
  request: AttemptExchange['request'];
  response: AttemptExchange['response'];
}

/**
 * One attempt of one delivery: sign the event (Standard Webhooks, with every secret that signs now, so an
 * endpoint mid-rotation verifies either), POST it, record what happened, and say when to come back.
 * Kept whole: a test event goes through the same `send` and agent, so it meets what deliveries meet.
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
    private readonly throttle: EndpointThrottle,
    metrics: Metrics,
  ) {
    this.agent = deliveryAgent(
      config.events.allowPrivateEndpoints,
      hostResolver(config.tuning.eventEndpointDnsPort),
    );
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
    const turn = await this.turnOf(work);
    if (turn.outcome) return turn;

    let result: SendResult;
    let at: Date;
    try {
      result = await this.send(work.event, work.endpoint.url, this.endpoints.secretsOf(work.endpoint, now));
      at = new Date();
    } finally {
      // Answered, failed or timed out: the send counts a window more under the rate limit, then leaves.
      if (turn.member) await this.throttle.answered(work.endpointId, turn.member);
    }
    if (result.ok) {
      // Always (the SQL skips a healthy endpoint): a failure recorded by a concurrent attempt after this one
      // read the endpoint must not outlive this success. Before the delivery is recorded, so a delivery
      // shown SUCCEEDED never has an endpoint still shown failing (a reader between the two saw that).
      await this.endpoints.markAnswering(work.endpointId);
      await this.deliveries.recordAttempt(work.id, work.attempts, {
        at,
        exchange: result.exchange,
        delivered: true,
        nextAttemptAt: null,
      });
      this.metrics.delivered(work.eventCreatedAt, at);
      return { outcome: 'delivered' };
    }
    return this.failed(work, result.exchange, at);
  }

  /**
   * Under the endpoint's rate limit a delivery goes when the throttle admits it (`member`: its place, to
   * give back once answered); until then it waits for the turn it was given, due then in Postgres (so the
   * sweeper does not take its job for lost, and the merchant sees when it goes), its attempts and its
   * retry schedule untouched.
   */
  private async turnOf(
    work: DeliveryWork,
  ): Promise<(DeliveryOutcome & { member?: never }) | { outcome?: never; member: string | null }> {
    if (work.endpoint.rateLimit === null) return { member: null };
    const answer = await this.throttle.ask(work.endpointId, work.id, work.endpoint.rateLimit);
    if (answer.admitted) return { member: answer.member };
    const now = new Date();
    const retryAt = new Date(now.getTime() + answer.waitMs);
    await this.deliveries.deferForThrottle(work.id, work.attempts, retryAt, now);
    this.metrics.throttled();
    return { outcome: 'throttled', retryAt };
  }

  /** A failed attempt: retried on the backoff until the event is too old, then given up. */
  private async failed(work: DeliveryWork, exchange: AttemptExchange, at: Date): Promise<DeliveryOutcome> {
    const deadline = work.eventCreatedAt.getTime() + this.config.events.deliveryRetryHours * 3_600_000;
    const retryAt = new Date(
      at.getTime() + retryDelayMs(work.attempts + 1, this.config.tuning.eventDeliveryBackoffSeconds),
    );
    const giveUp = retryAt.getTime() > deadline;
    const recorded = await this.deliveries.recordAttempt(work.id, work.attempts, {
      at,
      exchange,
      delivered: false,
      nextAttemptAt: giveUp ? null : retryAt,
    });
    if (!work.endpoint.failing) await this.endpoints.markFailing(work.endpointId, at);
    this.metrics.attempted(giveUp ? 'given_up' : 'retrying');
    if (giveUp) {
      this.logger.warn(
        {
          deliveryId: work.id,
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
    const endpoint = await this.endpoints.findSealed(merchantId, endpointId);
    if (!endpoint) throw new DomainError(ErrorCode.NOT_FOUND, 'Event endpoint not found.');
    const event: TestDelivery['event'] = {
      id: uuidV7(),
      type: ENDPOINT_TEST_EVENT.type,
      createdAt: new Date().toISOString(),
      userId: null,
      userReference: null,
      data: { endpointId },
    };
    const { ok, exchange } = await this.send(
      event,
      endpoint.url,
      this.endpoints.secretsOf(endpoint, new Date()),
    );
    return {
      event,
      delivered: ok,
      responseStatus: exchange.response?.status ?? null,
      error: exchange.error,
      durationMs: exchange.durationMs,
      request: exchange.request,
      response: exchange.response,
    };
  }

  private async send(event: MerchantEventWire, url: string, secrets: string[]): Promise<SendResult> {
    const body = JSON.stringify(event);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...webhookHeaders({ id: event.id, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets }),
    };
    const sent = { url, headers, body };
    const refused = refusedLiteralAddress(new URL(url), this.config.events.allowPrivateEndpoints);
    if (refused) {
      return {
        ok: false,
        exchange: { durationMs: 0, request: sent, response: null, error: `refused: ${refused}` },
      };
    }
    const timeout = this.config.tuning.eventDeliveryTimeoutMs;
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers,
        body,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
      });
      const excerpt = await readExcerpt(response.body);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      const redirected = response.statusCode >= 300 && response.statusCode < 400;
      const contentType = response.headers['content-type'];
      return {
        ok,
        exchange: {
          durationMs: took(),
          request: sent,
          response: {
            status: response.statusCode,
            contentType: typeof contentType === 'string' ? contentType.slice(0, 200) : null,
            ...excerpt,
          },
          error: ok ? null : redirected ? 'redirects are not followed' : `answered ${response.statusCode}`,
        },
      };
    } catch (error) {
      return {
        ok: false,
        exchange: { durationMs: took(), request: sent, response: null, error: describe(error, timeout) },
      };
    }
  }
}

/**
 * The start of an answer's body, as text, for the attempt log. The rest is read and dropped up to a bound,
 * so the connection can be reused; a longer body closes it instead. A body cut short by the endpoint (or
 * the timeout) keeps what came.
 */
async function readExcerpt(body: AsyncIterable<Buffer>): Promise<{ body: string; bodyTruncated: boolean }> {
  const kept: Buffer[] = [];
  let seen = 0;
  try {
    for await (const chunk of body) {
      if (seen < RESPONSE_EXCERPT_BYTES) kept.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - seen));
      seen += chunk.length;
      // Leaving the loop destroys the body, and with it the connection.
      if (seen > RESPONSE_EXCERPT_BYTES + DRAIN_BYTES) break;
    }
  } catch {
    // What arrived before the failure is the excerpt.
  }
  // `stream` holds back a character the cut split; NUL has no place in a Postgres text column.
  const text = new TextDecoder('utf-8').decode(Buffer.concat(kept), { stream: true });
  return { body: text.replaceAll('\u0000', '\uFFFD'), bodyTruncated: seen > RESPONSE_EXCERPT_BYTES };
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
