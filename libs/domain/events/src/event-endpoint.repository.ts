import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { MerchantId } from '#libs/context';
import { SecretBox } from '#libs/crypto';
import { DatabasePool, PrismaService, queryOn } from '#libs/database';
import type { DisabledEndpoint, SealedEndpoint } from './delivery-views.js';
import type { MerchantEventType } from './event-catalogue.js';
import {
  ENDPOINT_VIEW,
  EVENT_ENDPOINT_SQL,
  type EventEndpointView,
  toEnum,
  toView,
} from './event-endpoint.statements.js';

export { EVENT_ENDPOINT_SQL, type EventEndpointView };

/** Bound to the endpoint: a ciphertext copied onto another row does not open. */
const context = (endpointId: string) => `event-endpoint:${endpointId}`;

/**
 * The one owner of `event_endpoints`: a merchant's webhook endpoints and their signing secrets, sealed
 * (not hashed: we sign with them). Every query names the merchant.
 */
@Injectable()
export class EventEndpointRepository {
  private readonly box: SecretBox;

  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DatabasePool,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SecretBox(config.crypto.encryptionKeys);
  }

  async create(
    merchantId: MerchantId,
    input: {
      id: string;
      url: string;
      types: MerchantEventType[];
      rateLimit: number | null;
      secret: string;
    },
  ): Promise<EventEndpointView> {
    const sealed = this.box.seal(input.secret, context(input.id));
    const row = await this.prisma.eventEndpoint.create({
      data: {
        id: input.id,
        merchantId,
        url: input.url,
        types: input.types.map(toEnum) as never,
        rateLimit: input.rateLimit,
        secretCiphertext: sealed.ciphertext,
        secretKeyId: sealed.keyId,
      },
      select: ENDPOINT_VIEW,
    });
    return toView(row);
  }

  async list(merchantId: MerchantId): Promise<EventEndpointView[]> {
    const rows = await this.prisma.eventEndpoint.findMany({
      where: { merchantId },
      select: ENDPOINT_VIEW,
      orderBy: { createdAt: 'desc' },
    });
    return rows.map(toView);
  }

  async find(merchantId: MerchantId, id: string): Promise<EventEndpointView | null> {
    const row = await this.prisma.eventEndpoint.findFirst({
      where: { id, merchantId },
      select: ENDPOINT_VIEW,
    });
    return row ? toView(row) : null;
  }

  /** The endpoint as a delivery needs it (its address, sealed secrets and state), or null. */
  async findSealed(merchantId: MerchantId, id: string): Promise<SealedEndpoint | null> {
    const row = await this.prisma.eventEndpoint.findFirst({
      where: { id, merchantId },
      select: {
        id: true,
        url: true,
        secretCiphertext: true,
        secretKeyId: true,
        previousSecretCiphertext: true,
        previousSecretKeyId: true,
        previousSecretExpiresAt: true,
        failingSince: true,
        disabledAt: true,
      },
    });
    if (!row) return null;
    const { failingSince, disabledAt, ...sealed } = row;
    return { ...sealed, failing: failingSince !== null, disabled: disabledAt !== null };
  }

  /** Every merchant's endpoints that are disabled or failing, for the operator: the most troubled first. */
  async listTroubled(
    limit: number,
  ): Promise<(EventEndpointView & { merchantId: string; merchantName: string })[]> {
    const rows = await this.prisma.eventEndpoint.findMany({
      where: { OR: [{ disabledAt: { not: null } }, { failingSince: { not: null } }] },
      select: { ...ENDPOINT_VIEW, merchantId: true, merchant: { select: { name: true } } },
      orderBy: [{ failingSince: 'asc' }, { id: 'asc' }],
      take: limit,
    });
    return rows.map(({ merchant, ...row }) => ({
      ...toView(row),
      merchantId: row.merchantId,
      merchantName: merchant.name,
    }));
  }

  /** Deletes the endpoint and its delivery log. */
  async delete(merchantId: MerchantId, id: string): Promise<boolean> {
    const { count } = await this.prisma.eventEndpoint.deleteMany({ where: { id, merchantId } });
    return count === 1;
  }

  /** A new secret; the current one moves to `previous` and keeps signing until `previousExpiresAt`. */
  async rotateSecret(
    merchantId: MerchantId,
    id: string,
    secret: string,
    previousExpiresAt: Date,
  ): Promise<EventEndpointView | null> {
    const sealed = this.box.seal(secret, context(id));
    return this.prisma.$transaction(async (tx) => {
      // Two rotations at once: the second waits, so each moves the secret the other left to `previous`.
      await tx.$queryRawUnsafe(EVENT_ENDPOINT_SQL.lockForRotation.text, id, merchantId);
      const current = await tx.eventEndpoint.findFirst({
        where: { id, merchantId },
        select: { secretCiphertext: true, secretKeyId: true },
      });
      if (!current) return null;
      const row = await tx.eventEndpoint.update({
        where: { id },
        data: {
          secretCiphertext: sealed.ciphertext,
          secretKeyId: sealed.keyId,
          previousSecretCiphertext: current.secretCiphertext,
          previousSecretKeyId: current.secretKeyId,
          previousSecretExpiresAt: previousExpiresAt,
        },
        select: ENDPOINT_VIEW,
      });
      return toView(row);
    });
  }

  /**
   * Changes where deliveries go, which types it takes and its rate limit (pending deliveries go to the new
   * address, at the new rate); an undefined field stays as it is, a null rate limit is none.
   */
  async update(
    merchantId: MerchantId,
    id: string,
    change: { url?: string; types?: MerchantEventType[]; rateLimit?: number | null },
  ): Promise<EventEndpointView | null> {
    const rows = await this.db.rows({
      ...EVENT_ENDPOINT_SQL.update,
      values: [
        id,
        merchantId,
        change.url ?? null,
        change.types ?? null,
        change.rateLimit !== undefined,
        change.rateLimit ?? null,
      ],
    });
    return rows.length === 1 ? this.find(merchantId, id) : null;
  }

  /** Deliveries resume; the failure clock starts again. */
  async enable(merchantId: MerchantId, id: string): Promise<EventEndpointView | null> {
    const { count } = await this.prisma.eventEndpoint.updateMany({
      where: { id, merchantId },
      data: { disabledAt: null, disabledReason: null, failingSince: null },
    });
    return count === 1 ? this.find(merchantId, id) : null;
  }

  /** The secrets that sign now: the current one, and the previous one until it expires. */
  secretsOf(endpoint: SealedEndpoint, now: Date): string[] {
    const secrets = [
      this.box.open(
        { ciphertext: endpoint.secretCiphertext, keyId: endpoint.secretKeyId },
        context(endpoint.id),
      ),
    ];
    if (
      endpoint.previousSecretCiphertext &&
      endpoint.previousSecretKeyId &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt > now
    ) {
      secrets.push(
        this.box.open(
          { ciphertext: endpoint.previousSecretCiphertext, keyId: endpoint.previousSecretKeyId },
          context(endpoint.id),
        ),
      );
    }
    return secrets;
  }

  /** An attempt answered 2xx: the endpoint is healthy again. */
  async markAnswering(id: string): Promise<void> {
    await this.db.rows({
      ...EVENT_ENDPOINT_SQL.answering,
      values: [id],
    });
  }

  /** An attempt failed: the failure clock starts, unless it already runs. */
  async markFailing(id: string, now: Date): Promise<void> {
    await this.db.rows({
      ...EVENT_ENDPOINT_SQL.failing,
      values: [id, now],
    });
  }

  /**
   * Disables endpoints failing since before `cutoff`, with the reason; their pending deliveries fail now
   * (they would only fail later). Returns what it disabled, for the log.
   */
  /** Inside the caller's transaction, which records the `endpoint.disabled` events of those disabled. */
  async disableFailing(db: pg.PoolClient, cutoff: Date, now: Date): Promise<DisabledEndpoint[]> {
    const { rows } = await queryOn(db, { ...EVENT_ENDPOINT_SQL.disableFailing, values: [cutoff, now] });
    return rows.map((r) => ({
      id: r.id,
      merchantId: r.merchant_id,
      url: r.url,
      failingSince: r.failing_since,
      disabledAt: r.disabled_at,
      disabledReason: r.disabled_reason,
    }));
  }
}
