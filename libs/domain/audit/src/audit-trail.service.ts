import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { MerchantCaller } from '#libs/context';
import { deleteInBatches } from '#libs/database';
import { CLOCK, type Clock } from '#libs/time';
import type { AuditAction, AuditEntryView, NewAuditEntry } from './audit-action.js';
import { AuditEntryRepository, type AuditEntryRow, type AuditFilter } from './audit-entry.repository.js';

function view(row: AuditEntryRow): AuditEntryView {
  return {
    id: row.id,
    occurredAt: row.occurred_at.toISOString(),
    actor: { kind: row.actor_kind, apiKeyId: row.actor_key_id },
    action: row.action,
    merchantId: row.merchant_id,
    merchantName: row.merchant_name,
    resource: { type: row.resource_type, id: row.resource_id },
    fields: row.fields,
    sourceIp: row.source_ip,
    tracingId: row.tracing_id,
  };
}

/** A page position as `AuditPage.nextBefore` gives it (an entry's write order): what a cursor may hold. */
export const AUDIT_POSITION = /^[1-9][0-9]{0,17}$/;

export interface AuditPage {
  entries: AuditEntryView[];
  /** Where the next (older) page starts, when there is one: the last entry's position, opaque. */
  nextBefore: string | null;
}

/**
 * The audit log of administrative actions (docs/administration.md, "Audit log"): appended after each action
 * succeeds, read newest first, removed only by the retention sweep after AUDIT_RETENTION_DAYS.
 */
@Injectable()
export class AuditTrailService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly entries: AuditEntryRepository,
  ) {}

  record(entry: NewAuditEntry): Promise<void> {
    return this.entries.append(entry);
  }

  /** The operator's view: every merchant's entries and the operator's own, filtered. */
  async page(filter: {
    merchantId?: string;
    action?: AuditAction;
    before?: string;
    limit: number;
  }): Promise<AuditPage> {
    const { rows, more } = await this.entries.page({
      ...this.filterOf(filter),
      merchantId: filter.merchantId ?? null,
    });
    return { entries: rows.map(view), nextBefore: more ? (rows.at(-1)?.seq ?? null) : null };
  }

  /** A merchant's view: what was done to its integration, by its keys or by the operator. */
  async pageFor(
    caller: MerchantCaller,
    filter: { action?: AuditAction; before?: string; limit: number },
  ): Promise<AuditPage> {
    const { rows, more } = await this.entries.pageFor(caller, this.filterOf(filter));
    // The operator's own address is the platform's, not the merchant's to know.
    const entries = rows.map(view).map((e) => (e.actor.kind === 'operator' ? { ...e, sourceIp: null } : e));
    return { entries, nextBefore: more ? (rows.at(-1)?.seq ?? null) : null };
  }

  async prune(): Promise<{ audit: number }> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.retention.auditDays * 86_400_000);
    return { audit: await deleteInBatches((limit) => this.entries.deleteBefore(cutoff, limit)) };
  }

  private filterOf(filter: { action?: AuditAction; before?: string; limit: number }): AuditFilter {
    return { action: filter.action ?? null, beforeSeq: filter.before ?? null, limit: filter.limit };
  }
}
