import { Injectable } from '@nestjs/common';
import { JOB_REQUEST_ID_PREFIX, type TenantCaller, tenantOf } from '#libs/context';
import {
  type DeliveryView,
  EventDeliveryRepository,
  MerchantEventRepository,
  type MerchantEventWire,
} from '#libs/domain/events';
import { PaymentRepository, type PaymentView } from '#libs/domain/payments';
import { SyncRunRepository } from '#libs/domain/sync-runs';
import { UsersService, type UserView } from '#libs/domain/users';
import { isUuid } from '#libs/ids';
import { type SyncRunView, toSyncRunView } from './sync.service.js';

/** The most of each kind a lookup answers; `more` says when there were others. */
export const TRACING_LOOKUP_LIMIT = 50;

export interface TracingLookup {
  /** The customer whose reference (or id) it is: support starts from what the customer says. */
  users: UserView[];
  syncRuns: SyncRunView[];
  /** Payments by the upstream's tracing id of any of their calls (the call log), or by their id. */
  payments: PaymentView[];
  events: MerchantEventWire[];
  deliveries: (DeliveryView & { endpointId: string })[];
  /** Whether more than TRACING_LOOKUP_LIMIT of each matched (the newest are answered). */
  more: { syncRuns: boolean; payments: boolean; events: boolean; deliveries: boolean };
}

const newest = <T>(rows: T[]) => ({
  items: rows.slice(0, TRACING_LOOKUP_LIMIT),
  more: rows.length > TRACING_LOOKUP_LIMIT,
});

/**
 * What a tracing id, or any id, names among a merchant's customers, sync runs, payments, events and
 * deliveries, and what those lead to (issue 43): runs by the upstream's tracing id of their failure or of
 * any of their calls, by the tracing id of the request that opened them (POST …/sync, the callback of an
 * authorisation) or by their id; payments by the upstream's tracing id of any of their calls or by their
 * id; events by their
 * id, by the request that recorded them (the `tracingId` our api answered it, its x-request-id) or by a
 * run found; deliveries by their id or of an event found. Each by an index, within the merchant only.
 */
@Injectable()
export class TracingLookupService {
  constructor(
    private readonly runs: SyncRunRepository,
    private readonly payments: PaymentRepository,
    private readonly events: MerchantEventRepository,
    private readonly deliveries: EventDeliveryRepository,
    private readonly users: UsersService,
  ) {}

  /** `id` as the api takes it: 1 to 255 visible ASCII characters (our ids and the upstream's). */
  async lookUp(caller: TenantCaller, id: string): Promise<TracingLookup> {
    const merchantId = tenantOf(caller);
    const uuid = isUuid(id) ? id.toLowerCase() : null;
    const runs = newest(
      await this.runs.findForTracingLookup(
        merchantId,
        { tracingId: id, runId: uuid },
        TRACING_LOOKUP_LIMIT + 1,
      ),
    );
    const payments = newest(
      await this.payments.findForTracingLookup(
        merchantId,
        { tracingId: id, paymentId: uuid },
        TRACING_LOOKUP_LIMIT + 1,
      ),
    );
    const events = newest(
      await this.events.findForTracingLookup(
        merchantId,
        {
          eventId: uuid,
          // A job's request id is never looked up: a merchant must not learn, by trying such ids, which of
          // our jobs recorded which of its events.
          requestId: id.startsWith(JOB_REQUEST_ID_PREFIX) ? null : id,
          syncIds: runs.items.map((run) => run.id),
        },
        TRACING_LOOKUP_LIMIT + 1,
      ),
    );
    const deliveries = newest(
      await this.deliveries.findForTracingLookup(
        merchantId,
        { deliveryId: uuid, eventIds: events.items.map((e) => e.event.id) },
        TRACING_LOOKUP_LIMIT + 1,
      ),
    );
    return {
      users: await this.users.named(caller, id),
      syncRuns: runs.items.map(toSyncRunView),
      payments: payments.items,
      events: events.items.map((e) => e.event),
      deliveries: deliveries.items,
      more: {
        syncRuns: runs.more,
        payments: payments.more,
        events: events.more,
        deliveries: deliveries.more,
      },
    };
  }
}
