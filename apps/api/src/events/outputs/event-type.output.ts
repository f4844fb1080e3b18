import { ApiProperty } from '@nestjs/swagger';
import { DELIVERED_EVENT_TYPES, type DeliveredEventType } from '#libs/domain/events';

/** One type of the catalogue: what it means, and the schema of the event an endpoint receives. */
export class EventTypeOutput {
  @ApiProperty({ enum: Object.keys(DELIVERED_EVENT_TYPES), description: 'The event’s `type`' })
  name!: DeliveredEventType;
  @ApiProperty({ description: 'What happened when an event of this type is sent' })
  description!: string;
  @ApiProperty({
    description:
      'An endpoint can subscribe to it (`types` of POST /v1/event-endpoints); false for `endpoint.test`, sent only when asked for',
  })
  subscribable!: boolean;
  @ApiProperty({
    example: 'ConsentRevokedEventOutput',
    description:
      'The schema’s name among the OpenAPI document’s components, which `schema` is generated from',
  })
  component!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The whole event as delivered (the body, and a stream’s `data:`), with this type’s `data`: a self-contained JSON Schema (2020-12, no references), generated from `component`. It declares every member sent; a later version may add members, so a receiver validating with it should allow unknown ones (as it does)',
  })
  schema!: Record<string, unknown>;
}
