import { ApiPropertyOptional } from '@nestjs/swagger';
import { MERCHANT_EVENT_TYPE_NAMES, type MerchantEventType } from '#libs/domain/events';
import { Omittable } from '../../common/omittable.js';
import { EVENT_TYPES_DESCRIPTION } from '../event-types.js';
import { ENDPOINT_URL_DESCRIPTION } from './create-event-endpoint.input.js';
import { EventEndpointFields, RATE_LIMIT_DESCRIPTION } from './event-endpoint-fields.js';

/** What may change of an endpoint; an omitted field stays as it is. */
export class UpdateEventEndpointInput {
  @ApiPropertyOptional({
    example: 'https://merchant.example/webhooks/open-banking-v2',
    description: `${ENDPOINT_URL_DESCRIPTION} Deliveries still pending go to the new address; a new address starts the failure clock (auto-disable) again.`,
  })
  @Omittable()
  @EventEndpointFields.url()
  url?: string;

  @ApiPropertyOptional({
    type: [String],
    enum: MERCHANT_EVENT_TYPE_NAMES,
    description: `The whole new list of types (\`[]\`: all of them), for events recorded from now on.\n\n${EVENT_TYPES_DESCRIPTION}`,
  })
  @Omittable()
  @EventEndpointFields.types()
  types?: MerchantEventType[];

  @EventEndpointFields.rateLimit(
    `${RATE_LIMIT_DESCRIPTION} A new limit applies to deliveries still pending, from their next turn; null lifts it.`,
  )
  rateLimit?: number | null;
}
