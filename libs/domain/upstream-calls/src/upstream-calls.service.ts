import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type TenantCaller, tenantOf } from '#libs/context';
import { deleteInBatches } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';
import { CLOCK, type Clock } from '#libs/time';
import { type CallParent, UpstreamCallRepository } from './upstream-call.repository.js';
import type { UpstreamCallRow } from './upstream-call.statements.js';

const NOT_FOUND: Record<CallParent, string> = {
  consent: 'Consent not found.',
  'sync-run': 'Sync not found.',
  payment: 'Payment not found.',
};

/** The calls made to the upstream for a merchant's consents, runs and payments (docs/upstream-calls.md). */
@Injectable()
export class UpstreamCallsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly calls: UpstreamCallRepository,
  ) {}

  /** A page of a consent's, run's or payment's calls, newest first; another merchant's is not found. */
  async pageOf(
    caller: TenantCaller,
    parent: CallParent,
    id: string,
    limit: number,
    beforeId?: string,
  ): Promise<{ calls: UpstreamCallRow[]; nextBeforeId: string | null }> {
    const page = await this.calls.pageOf(tenantOf(caller), parent, id, limit, beforeId);
    if (!page) throw new DomainError(ErrorCode.NOT_FOUND, NOT_FOUND[parent]);
    return { calls: page.calls, nextBeforeId: page.more ? (page.calls.at(-1)?.id ?? null) : null };
  }

  /** Removes calls older than the events' retention (EVENT_RETENTION_DAYS). */
  async prune(): Promise<{ upstreamCalls: number }> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.retention.eventDays * 86_400_000);
    return { upstreamCalls: await deleteInBatches((limit) => this.calls.deleteBefore(cutoff, limit)) };
  }
}
