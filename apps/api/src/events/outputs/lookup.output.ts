import { ApiProperty } from '@nestjs/swagger';
import type { MerchantEventWire } from '#libs/domain/events';
import { PaymentOutput } from '../../common/outputs/payment.output.js';
import { SyncRunOutput } from '../../common/outputs/sync-run.output.js';
import { UserOutput } from '../../common/outputs/user.output.js';
import { EventDeliveryOutput } from './event-delivery.output.js';

/** A delivery as the endpoint's log shows it, with the endpoint it went to (the log is per endpoint). */
export class LookupDeliveryOutput extends EventDeliveryOutput {
  @ApiProperty({ format: 'uuid', description: 'The endpoint: GET /v1/event-endpoints/{id}' })
  endpointId!: string;
}

export class LookupMoreOutput {
  @ApiProperty({ description: 'More sync runs matched than the 50 answered' }) syncRuns!: boolean;
  @ApiProperty({ description: 'More payments matched than the 50 answered' }) payments!: boolean;
  @ApiProperty({ description: 'More events matched than the 50 answered' }) events!: boolean;
  @ApiProperty({ description: 'More deliveries matched than the 50 answered' }) deliveries!: boolean;
}

/**
 * What an id names among the merchant's customers, sync runs, payments, events and deliveries, and what
 * those lead to.
 */
export class LookupOutput {
  @ApiProperty({
    type: [UserOutput],
    description:
      'The customer whose `reference` it is (your own id for them), or whose id it is: at most one of each. Their consents, accounts and runs are a GET away',
  })
  users!: UserOutput[];
  @ApiProperty({
    type: [SyncRunOutput],
    description:
      'Runs whose failure carries the id as the upstream’s tracing id (`error.upstream.tracingId`), any of whose upstream calls the upstream answered with it (GET /v1/syncs/{syncId}/upstream-calls), or whose id it is; newest first, at most 50',
  })
  syncRuns!: SyncRunOutput[];
  @ApiProperty({
    type: [PaymentOutput],
    description:
      'Payments any of whose upstream calls the upstream answered with the id as its tracing id (GET /v1/payments/{paymentId}/upstream-calls), or whose id it is; newest first, at most 50',
  })
  payments!: PaymentOutput[];
  @ApiProperty({
    type: 'array',
    items: { $ref: '#/components/schemas/MerchantEventOutput' },
    description:
      'Events whose id it is, recorded by the api request whose `tracingId` (x-request-id) it is, or about a run above (`data.syncId`); newest first in commit order, at most 50',
  })
  // Typed as the domain's wire event: the schema above is the union of each type's.
  events!: MerchantEventWire[];
  @ApiProperty({
    type: [LookupDeliveryOutput],
    description: 'Deliveries of an event above, or whose id it is; newest first, at most 50',
  })
  deliveries!: LookupDeliveryOutput[];
  @ApiProperty({ type: LookupMoreOutput, description: 'Whether each list was cut at 50' })
  more!: LookupMoreOutput;
}
