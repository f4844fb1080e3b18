import { Inject, Injectable } from '@nestjs/common';
import { assertActsFor, type MerchantId, type TenantCaller, tenantOf } from '#libs/context';
import { MerchantRepository } from '#libs/domain/merchants';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { isUuid } from '#libs/ids';
import { type AppLogger, LOGGER } from '#libs/observability';
import { CredentialRevocations } from '#libs/redis';
import {
  type CallOptions,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
  type UserPatchOperation,
} from '#libs/upstream-client';
import { UserRepository } from './user.repository.js';

/** What the merchant API shows of a user; the upstream uuid and applicationUserId stay internal. */
export interface UserView {
  id: string;
  reference: string;
  vopOptOut: boolean;
  createdAt: string;
  updatedAt: string;
}

type UserRow = {
  id: string;
  merchantId: string;
  reference: string;
  applicationUserId: string;
  upstreamUserUuid: string | null;
  vopOptOut: boolean;
  createdAt: Date;
  updatedAt: Date;
};

const iso = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString());

/** Dates come from Prisma as Date, and already as ISO text from the hand-written list query. */
function userView(
  u: Omit<UserRow, 'createdAt' | 'updatedAt'> & { createdAt: Date | string; updatedAt: Date | string },
): UserView {
  return {
    id: u.id,
    reference: u.reference,
    vopOptOut: u.vopOptOut,
    createdAt: iso(u.createdAt),
    updatedAt: iso(u.updatedAt),
  };
}

const notFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');

/** A create the upstream refuses (its 400) is a refusal of the reference the caller gave (or its form). */
const REFUSED = { field: 'reference', noInstitution: true } as const;

/**
 * Merchant users, kept in step with the upstream's users of the merchant's (sub-)application. Kept whole:
 * every operation keeps the same two records in step, through the same upstream user.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UserRepository,
    private readonly merchants: MerchantRepository,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly revocations: CredentialRevocations,
  ) {}

  /**
   * Create-or-return on (merchant, reference). The local row is claimed first (the unique index decides
   * races), then the upstream user is created. A failed upstream call leaves the row without an upstream
   * uuid, and any later create of the same reference finishes the job, so retries converge on one user.
   */
  async create(
    caller: TenantCaller,
    input: { reference: string; vopOptOut?: boolean },
  ): Promise<{ user: UserView; created: boolean }> {
    const merchantId = tenantOf(caller);
    const options = await this.callOptions(merchantId);
    let row = await this.users.findByReference(merchantId, input.reference);
    let created = false;
    if (!row) {
      row = await this.users.insertIfAbsent(merchantId, {
        reference: input.reference,
        applicationUserId: this.applicationUserId(merchantId, input.reference, options),
        vopOptOut: input.vopOptOut ?? false,
      });
      created = row !== null;
      row ??= await this.users.findByReference(merchantId, input.reference);
      // Only a delete racing this very create gets here.
      if (!row) throw new DomainError(ErrorCode.CONFLICT, 'The user was deleted while being created.');
    }
    if (row.upstreamUserUuid === null) {
      await this.ensureUpstreamUser(merchantId, row, options);
      row = await this.mustFind(caller, row.id);
    }
    return { user: userView(row), created };
  }

  /** A session may read only its own user; any other reads as missing. */
  async get(caller: TenantCaller, userId: string): Promise<UserView> {
    assertActsFor(caller, userId);
    return userView(await this.mustFind(caller, userId));
  }

  async findByReference(caller: TenantCaller, reference: string): Promise<UserView> {
    const row = await this.users.findByReference(tenantOf(caller), reference);
    if (!row) throw notFound();
    return userView(row);
  }

  /** The users an id names (GET /v1/lookup): the one with it as reference, and the one whose id it is. */
  async named(caller: TenantCaller, id: string): Promise<UserView[]> {
    const merchantId = tenantOf(caller);
    const [byReference, byId] = await Promise.all([
      this.users.findByReference(merchantId, id),
      // Anything may be looked up; only a UUID can be a user's id.
      isUuid(id) ? this.users.findById(merchantId, id.toLowerCase()) : null,
    ]);
    const found = [byReference, byId].filter((row) => row !== null);
    return [...new Map(found.map((row) => [row.id, userView(row)])).values()];
  }

  async list(caller: TenantCaller, limit: number, afterId?: string) {
    const { rows, more } = await this.users.list(tenantOf(caller), limit, afterId);
    return { users: rows.map(userView), nextAfterId: more ? (rows.at(-1)?.id ?? null) : null };
  }

  /** The upstream first: if it refuses, nothing changed locally either. */
  async update(
    caller: TenantCaller,
    userId: string,
    input: { reference?: string; vopOptOut?: boolean },
  ): Promise<UserView> {
    assertActsFor(caller, userId);
    const merchantId = tenantOf(caller);
    const row = await this.mustFind(caller, userId);
    const options = await this.callOptions(merchantId);
    const changes: { reference?: string; applicationUserId?: string; vopOptOut?: boolean } = {};
    const operations: UserPatchOperation[] = [];
    if (input.reference !== undefined && input.reference !== row.reference) {
      const holder = await this.users.findByReference(merchantId, input.reference);
      if (holder) throw new DomainError(ErrorCode.CONFLICT, 'Another user has this reference.');
      changes.reference = input.reference;
      changes.applicationUserId = this.applicationUserId(merchantId, input.reference, options);
      operations.push(
        { op: 'replace', path: '/applicationUserId', value: changes.applicationUserId },
        { op: 'replace', path: '/referenceId', value: input.reference },
      );
    }
    if (input.vopOptOut !== undefined && input.vopOptOut !== row.vopOptOut) {
      changes.vopOptOut = input.vopOptOut;
      // The upstream's JSON-patch values are strings (upstream spec §4.4): "true" / "false".
      operations.push({ op: 'replace', path: '/vopOptOut', value: String(input.vopOptOut) });
    }
    if (operations.length === 0) return userView(row);
    const uuid = row.upstreamUserUuid ?? (await this.ensureUpstreamUser(merchantId, row, options));
    try {
      await this.upstream.users.update(uuid, operations, options);
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'NOT_FOUND') {
        // Deleted upstream behind our back (or by another tool): only the operator can reconcile it.
        this.logger.warn(
          {
            resource: 'user',
            merchantId,
            userId,
            upstreamUserUuid: uuid,
            upstreamStatus: error.status,
            upstreamTracingId: error.tracingId,
          },
          'users: the upstream has no record of a user we hold',
        );
      }
      // A refusal names what was sent: the reference, or the opt-out when the reference did not change.
      const field = changes.reference === undefined ? 'vopOptOut' : 'reference';
      throw mapUpstreamFailure(error, { resource: 'user', field, noInstitution: true });
    }
    const updated = await this.users.update(merchantId, userId, changes);
    if (!updated) throw notFound();
    return userView(updated);
  }

  /**
   * Erasure: the upstream user (and so its consents there) first, then every local row of theirs. An
   * upstream 404 means it is already gone, so a retried erasure completes.
   */
  async delete(caller: TenantCaller, userId: string): Promise<void> {
    assertActsFor(caller, userId);
    const row = await this.mustFind(caller, userId);
    const options = await this.callOptions(caller.merchantId);
    try {
      // Without a recorded uuid the upstream may still hold the user (a create that failed half-way).
      const uuids = row.upstreamUserUuid
        ? [row.upstreamUserUuid]
        : (await this.upstream.users.list({ applicationUserId: row.applicationUserId }, options)).data.map(
            (u) => u.uuid,
          );
      for (const uuid of uuids) {
        try {
          await this.upstream.users.delete(uuid, options);
        } catch (error) {
          if (!(error instanceof UpstreamError && error.kind === 'NOT_FOUND')) throw error;
        }
      }
    } catch (error) {
      throw mapUpstreamFailure(error, { field: 'userId', noInstitution: true });
    }
    await this.users.delete(tenantOf(caller), userId);
    // Their session tokens must die on every api process, not when a cached verification runs out.
    await this.revocations.publish({ kind: 'user', id: userId });
  }

  /** Throws NOT_FOUND unless the merchant has this user (another merchant's user is just as missing). */
  private async mustFind(caller: TenantCaller, userId: string): Promise<UserRow> {
    const row = await this.users.findById(tenantOf(caller), userId);
    if (!row) throw notFound();
    return row;
  }

  /**
   * Merchants on the root application share one upstream namespace, so their users are prefixed with the
   * merchant id; a sub-application is the merchant's own namespace and gets the bare reference.
   */
  private applicationUserId(merchantId: string, reference: string, options: CallOptions): string {
    return options.subApplication ? reference : `${merchantId}:${reference}`;
  }

  private async callOptions(merchantId: string): Promise<CallOptions> {
    const merchant = await this.merchants.findById(merchantId);
    return merchant?.subApplicationId ? { subApplication: merchant.subApplicationId } : {};
  }

  /** Creates (or, after a lost race or a half-done create, adopts) the upstream user; returns its uuid. */
  private async ensureUpstreamUser(
    merchantId: MerchantId,
    row: UserRow,
    options: CallOptions,
  ): Promise<string> {
    let uuid: string | undefined;
    try {
      const { data } = await this.upstream.users.create(
        { applicationUserId: row.applicationUserId, referenceId: row.reference, vopOptOut: row.vopOptOut },
        options,
      );
      uuid = data.uuid;
    } catch (error) {
      if (!(error instanceof UpstreamError && error.status === 409)) throw mapUpstreamFailure(error, REFUSED);
      try {
        const { data } = await this.upstream.users.list(
          { applicationUserId: row.applicationUserId },
          options,
        );
        uuid = data[0]?.uuid;
      } catch (listError) {
        throw mapUpstreamFailure(listError, { noInstitution: true });
      }
      if (!uuid) throw mapUpstreamFailure(error, REFUSED);
    }
    await this.users.setUpstreamUserUuid(merchantId, row.id, uuid);
    return uuid;
  }
}
