import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { meaningOf, MerchantEventFields } from './merchant-event-fields.output.js';

// The `endpoint.*` events a merchant's endpoints receive about another of its endpoints: what the sweeper
// (EventsSweeperService, libs/domain/events) records as it disables one.

@ApiSchema({ description: '`data` of endpoint.disabled: the endpoint, as it was disabled' })
export class EndpointDisabledEventData {
  @ApiProperty({ format: 'uuid', description: 'GET /v1/event-endpoints/{id}' }) endpointId!: string;
  @ApiProperty({ description: 'Its URL when it was disabled' }) url!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Since when no delivery to it succeeded: the `since` to recover from',
  })
  failingSince!: string;
  @ApiProperty({ format: 'date-time' }) disabledAt!: string;
  @ApiProperty({ description: 'Why, as GET /v1/event-endpoints/{id} shows it' }) disabledReason!: string;
}

@ApiSchema({ description: meaningOf('endpoint.disabled') })
export class EndpointDisabledEventOutput extends MerchantEventFields {
  @ApiProperty({ enum: ['endpoint.disabled'] }) override type!: 'endpoint.disabled';
  @ApiProperty({ type: EndpointDisabledEventData }) data!: EndpointDisabledEventData;
}
