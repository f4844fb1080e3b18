import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, NodeEnv } from '#libs/config';
import { type TenantCaller, tenantOf } from '#libs/context';
import { generateWebhookSecret } from '#libs/crypto';
import { DomainError, ErrorCode } from '#libs/errors';
import { uuidV7 } from '#libs/ids';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import {
  hostResolver,
  refusedLiteralAddress,
  refusedResolvedAddress,
  type ResolveHost,
} from './delivery-target.js';
import type { AttemptView, DeliveryView } from './delivery-views.js';
import type { MerchantEventType } from './event-catalogue.js';
import { EventDeliveryRepository } from './event-delivery.repository.js';
import { EventEndpointRepository, type EventEndpointView } from './event-endpoint.repository.js';

/** The old secret keeps signing alongside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

const notFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Event endpoint not found.');
const deliveryNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Delivery not found.');

/** A merchant's webhook endpoints: create (the secret shown once), list, rotate, watch and retry deliveries. */
@Injectable()
export class EventEndpointsService {
  private readonly resolve: ResolveHost;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly endpoints: EventEndpointRepository,
    private readonly deliveries: EventDeliveryRepository,
    private readonly producer: JobProducerService,
  ) {
    this.resolve = hostResolver(config.tuning.eventEndpointDnsPort);
  }

  async create(
    caller: TenantCaller,
    input: { url: string; types: MerchantEventType[]; rateLimit: number | null },
  ): Promise<{ endpoint: EventEndpointView; secret: string }> {
    await this.checkUrl(input.url);
    const secret = generateWebhookSecret();
    const endpoint = await this.endpoints.create(tenantOf(caller), {
      id: uuidV7(),
      url: input.url,
      types: [...new Set(input.types)],
      rateLimit: input.rateLimit,
      secret,
    });
    return { endpoint, secret };
  }

  /** The operator's view: endpoints that are disabled or failing, across merchants, with why. */
  troubled(limit = 200) {
    return this.endpoints.listTroubled(limit);
  }

  list(caller: TenantCaller): Promise<EventEndpointView[]> {
    return this.endpoints.list(tenantOf(caller));
  }

  async get(caller: TenantCaller, id: string): Promise<EventEndpointView> {
    const endpoint = await this.endpoints.find(tenantOf(caller), id);
    if (!endpoint) throw notFound();
    return endpoint;
  }

  async delete(caller: TenantCaller, id: string): Promise<void> {
    if (!(await this.endpoints.delete(tenantOf(caller), id))) throw notFound();
  }

  async rotateSecret(
    caller: TenantCaller,
    id: string,
    now = new Date(),
  ): Promise<{ endpoint: EventEndpointView; secret: string }> {
    const secret = generateWebhookSecret();
    const endpoint = await this.endpoints.rotateSecret(
      tenantOf(caller),
      id,
      secret,
      new Date(now.getTime() + ROTATION_OVERLAP_MS),
    );
    if (!endpoint) throw notFound();
    return { endpoint, secret };
  }

  /**
   * A new address, new types or a new rate limit; pending deliveries go to the new address at the new
   * rate, types apply to later events.
   */
  async update(
    caller: TenantCaller,
    id: string,
    change: { url?: string; types?: MerchantEventType[]; rateLimit?: number | null },
  ): Promise<EventEndpointView> {
    if (change.url === undefined && change.types === undefined && change.rateLimit === undefined) {
      // An empty change would still be audited and bump the endpoint: refused as the mistake it is.
      throw new DomainError(
        ErrorCode.VALIDATION_FAILED,
        'Give url, types or rateLimit (one or more): nothing to change.',
      );
    }
    if (change.url !== undefined) await this.checkUrl(change.url);
    const types = change.types && [...new Set(change.types)];
    const endpoint = await this.endpoints.update(tenantOf(caller), id, {
      url: change.url,
      types,
      rateLimit: change.rateLimit,
    });
    if (!endpoint) throw notFound();
    return endpoint;
  }

  async enable(caller: TenantCaller, id: string): Promise<EventEndpointView> {
    const endpoint = await this.endpoints.enable(tenantOf(caller), id);
    if (!endpoint) throw notFound();
    return endpoint;
  }

  async deliveriesOf(
    caller: TenantCaller,
    endpointId: string,
    page: { beforeId: string | null; limit: number },
  ): Promise<DeliveryView[]> {
    await this.get(caller, endpointId);
    return this.deliveries.listForEndpoint(tenantOf(caller), endpointId, page.beforeId, page.limit);
  }

  /** A delivery's attempt log, newest first: each attempt's request and what came back. */
  async attemptsOf(
    caller: TenantCaller,
    endpointId: string,
    deliveryId: string,
    page: { beforeAttempt: number | null; limit: number },
  ): Promise<AttemptView[]> {
    await this.get(caller, endpointId);
    const attempts = await this.deliveries.listAttempts(
      tenantOf(caller),
      endpointId,
      deliveryId,
      page.beforeAttempt,
      page.limit,
    );
    if (!attempts) throw deliveryNotFound();
    return attempts;
  }

  /** Sends a delivery again now, whatever its state (a failed one, or a delivered one the merchant lost). */
  async retry(
    caller: TenantCaller,
    endpointId: string,
    deliveryId: string,
    now = new Date(),
  ): Promise<DeliveryView> {
    const delivery = await this.deliveries.requeue(tenantOf(caller), endpointId, deliveryId, now);
    if (!delivery) {
      const endpoint = await this.endpoints.find(tenantOf(caller), endpointId);
      if (endpoint?.disabledAt) {
        throw new DomainError(ErrorCode.CONFLICT, 'The endpoint is disabled: enable it, then retry.');
      }
      throw deliveryNotFound();
    }
    // Now, even when the delivery's job is waiting out a retry delay.
    await this.producer.runNow('events.deliver', { deliveryId });
    return delivery;
  }

  /**
   * Svix's "recover failed messages since": the endpoint's deliveries that FAILED for good, created at or
   * after `since`, sent again (attempts kept), at most the tuning's `eventRecoveryBatch` a call; `more` asks for
   * another call. A delivery pending or delivered is left as it is, so calling twice sends nothing twice.
   */
  async recover(
    caller: TenantCaller,
    endpointId: string,
    since: Date,
    now = new Date(),
  ): Promise<{ scheduled: number; more: boolean }> {
    const endpoint = await this.get(caller, endpointId);
    if (endpoint.disabledAt) {
      throw new DomainError(
        ErrorCode.CONFLICT,
        'The endpoint is disabled: enable it (POST /v1/event-endpoints/{id}/enable), then recover.',
      );
    }
    const days = this.config.retention.eventDays;
    const invalid = (issue: string) =>
      new DomainError(ErrorCode.VALIDATION_FAILED, `since ${issue}`, {
        details: [{ field: 'since', issue }],
      });
    if (since.getTime() > now.getTime()) throw invalid('must not be in the future');
    if (since.getTime() < now.getTime() - days * 86_400_000) {
      throw invalid(`must be within the last ${days} days (EVENT_RETENTION_DAYS): nothing older is kept`);
    }
    const { ids, more } = await this.deliveries.recoverFailed(
      tenantOf(caller),
      endpointId,
      since,
      now,
      this.config.tuning.eventRecoveryBatch,
    );
    try {
      await this.producer.enqueueMany(
        'events.deliver',
        ids.map((deliveryId) => ({ deliveryId })),
      );
    } catch (error) {
      // They are pending and due in Postgres: the sweeper enqueues them once the queue is back.
      this.logger.warn(
        { err: error, endpointId, deliveries: ids.length },
        'recovered deliveries left to the sweeper',
      );
    }
    return { scheduled: ids.length, more };
  }

  private async checkUrl(raw: string): Promise<void> {
    const invalid = (issue: string) =>
      new DomainError(ErrorCode.VALIDATION_FAILED, `url ${issue}`, { details: [{ field: 'url', issue }] });
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalid('must be an absolute URL');
    }
    const production = this.config.env === NodeEnv.Production;
    if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) {
      throw invalid(production ? 'must use https' : 'must use http or https');
    }
    if (url.username || url.password) throw invalid('must not carry credentials');
    const allowPrivate = this.config.events.allowPrivateEndpoints;
    const refused =
      refusedLiteralAddress(url, allowPrivate) ??
      (await refusedResolvedAddress(url, allowPrivate, this.resolve));
    if (refused) throw invalid(`must be a public address (${refused})`);
  }
}
