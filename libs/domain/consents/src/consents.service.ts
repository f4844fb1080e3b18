import { Inject, Injectable } from '@nestjs/common';
import { assertActsFor, type TenantCaller, tenantOf } from '#libs/context';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { type AppLogger, LOGGER } from '#libs/observability';
import { UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { consentNotFound, userNotFound } from './consent.errors.js';
import { ConsentRepository } from './consent.repository.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStatus } from './consent-status.js';
import { ConsentStatusHistoryRepository } from './consent-status-history.repository.js';
import { type ConsentView, summariseSync, toConsentView } from './consent-views.js';

/** A merchant's consents as the API shows them, and their revocation; the flows have their own services. */
@Injectable()
export class ConsentsService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: ConsentRepository,
    private readonly state: ConsentStateRepository,
    private readonly history: ConsentStatusHistoryRepository,
  ) {}

  async get(caller: TenantCaller, consentId: string): Promise<ConsentView> {
    const consent = await this.consents.findOne(tenantOf(caller), consentId, caller.userId);
    if (!consent) throw consentNotFound();
    const accounts = await this.consents.accountSyncStates(tenantOf(caller), consent.id);
    return { ...toConsentView(consent), sync: summariseSync(accounts) };
  }

  /** The consent's statuses oldest first, a page after `afterId`; another merchant's consent is not found. */
  async statusHistory(caller: TenantCaller, consentId: string, limit: number, afterId?: string) {
    const consent = await this.consents.findOne(tenantOf(caller), consentId, caller.userId);
    if (!consent) throw consentNotFound();
    return this.history.page(tenantOf(caller), consent.id, limit, afterId);
  }

  async listForUser(caller: TenantCaller, userId: string, limit: number, beforeId?: string) {
    assertActsFor(caller, userId);
    if (!(await this.consents.userExists(tenantOf(caller), userId))) throw userNotFound();
    const { rows, more } = await this.consents.listForUser(tenantOf(caller), userId, limit, beforeId);
    const now = new Date();
    return {
      consents: rows.map((c) => toConsentView(c, now)),
      nextBeforeId: more ? rows.at(-1)!.id : undefined,
    };
  }

  /** Revokes upstream, then locally. Idempotent: revoking a revoked consent, or one the upstream no longer knows, is done. */
  async revoke(caller: TenantCaller, consentId: string): Promise<void> {
    const tenant = tenantOf(caller);
    const consent = await this.consents.findOne(tenant, consentId, caller.userId);
    if (!consent) throw consentNotFound();
    if (consent.status === ConsentStatus.Revoked) return;
    try {
      await this.upstream.consents.delete(consent.upstreamConsentId, {
        subApplication: await this.consents.subApplicationOf(tenant),
        institutionId: consent.institutionId,
      });
    } catch (error) {
      if (!(error instanceof UpstreamError && error.kind === 'NOT_FOUND')) {
        // A refusal (its 4xx) is of this consent, and lasts: the caller's 400, not an outage to retry.
        throw mapUpstreamFailure(error, { resource: 'consent', field: 'consentId' });
      }
    }
    const result = await this.state.markRevoked(tenant, consent.id);
    // Only a concurrent revocation gets here: it is done either way.
    if (!result.applied) this.logger.debug({ consentId, found: result.found }, 'consent already revoked');
  }
}
