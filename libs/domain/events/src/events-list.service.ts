import { Injectable } from '@nestjs/common';
import { type TenantCaller, tenantOf } from '#libs/context';
import { DomainError, ErrorCode } from '#libs/errors';
import type { MerchantEventType, MerchantEventWire } from './event-catalogue.js';
import { MerchantEventRepository } from './merchant-event.repository.js';

export interface EventsListQuery {
  limit: number;
  /** The stream position the page starts before (the previous page's last). */
  beforeStreamSeq?: string;
  type?: MerchantEventType;
  userId?: string;
  /** `from` inclusive, `before` exclusive: on the event's createdAt. */
  from?: string;
  before?: string;
}

/**
 * A merchant's events as a list (Stripe's `GET /v1/events`): everything sent to its endpoints and its
 * users' streams, while kept (EVENT_RETENTION_DAYS), newest first in commit order. For catching up
 * after an endpoint was down: page from now back to when it stopped, deduplicating on `id`.
 */
@Injectable()
export class EventsListService {
  constructor(private readonly events: MerchantEventRepository) {}

  async list(
    caller: TenantCaller,
    query: EventsListQuery,
  ): Promise<{ events: MerchantEventWire[]; nextBeforeStreamSeq: string | null }> {
    const { limit, ...filters } = query;
    const rows = await this.events.listForMerchant(tenantOf(caller), filters, limit + 1);
    const page = rows.slice(0, limit);
    return {
      events: page.map((row) => row.event),
      nextBeforeStreamSeq: rows.length > limit ? page.at(-1)!.streamSeq : null,
    };
  }

  async get(caller: TenantCaller, eventId: string): Promise<MerchantEventWire> {
    const found = await this.events.findForMerchant(tenantOf(caller), eventId);
    if (!found) throw new DomainError(ErrorCode.NOT_FOUND, 'Event not found.');
    return found.event;
  }
}
