import { ApiProperty, ApiSchema } from '@nestjs/swagger';

// The `endpoint.*` events' `data`: about another of the merchant's endpoints, what the sweeper
// (FailingEndpointsService, libs/domain/events) records as it disables one; and the test an endpoint is
// sent on request (EventDeliveryService.test), never recorded.

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

@ApiSchema({ description: '`data` of endpoint.test' })
export class EndpointTestEventData {
  @ApiProperty({ format: 'uuid', description: 'The endpoint the test was sent to' }) endpointId!: string;
}
