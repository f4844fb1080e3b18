import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  DELIVERED_EVENT_TYPES,
  type DeliveredEventType,
  deliveryPolicy,
  isMerchantEventType,
} from '#libs/domain/events';
import { ApiAnswer, Auth, AuthKind, envelope } from '#libs/http';
import { OpenApiDocumentService } from '../common/openapi-document/openapi-document.service.js';
import { listEnvelope } from '../common/paging.js';
import { EventDeliveryPolicyOutput } from './outputs/event-delivery-policy.output.js';
import { EventTypeOutput } from './outputs/event-type.output.js';
import { MERCHANT_EVENT_OUTPUTS } from './outputs/merchant-event.output.js';

/**
 * What a merchant's endpoints may receive, for a receiver to generate its types or check bodies, and
 * how it is delivered (docs/events.md): the catalogue, each type's schema taken from the OpenAPI
 * document this api serves, and the retry schedule the worker applies.
 */
@ApiTags('events')
@Auth(AuthKind.Merchant)
@Controller('v1')
export class EventCatalogueController {
  constructor(
    private readonly openApi: OpenApiDocumentService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('event-types')
  @ApiOperation({
    summary: 'The event types, each with the JSON Schema of its event',
    description:
      'Every type an endpoint may receive, in the catalogue’s order: what it means, whether an endpoint subscribes to it, and the JSON Schema (2020-12, self-contained) of the whole event as delivered, generated from the same component of this OpenAPI document (`component`, one of MerchantEventOutput’s members).',
  })
  @ApiAnswer(200, EventTypeOutput, { list: true })
  eventTypes() {
    const types = Object.keys(DELIVERED_EVENT_TYPES) as DeliveredEventType[];
    return listEnvelope(
      types.map((name) => {
        const component = getSchemaPath(MERCHANT_EVENT_OUTPUTS[name]).split('/').pop()!;
        return {
          name,
          description: DELIVERED_EVENT_TYPES[name].description,
          subscribable: isMerchantEventType(name),
          component,
          schema: this.openApi.jsonSchema(component),
        };
      }),
    );
  }

  @Get('event-delivery-policy')
  @ApiOperation({
    summary: 'How deliveries are retried, given up on, throttled, and endpoints disabled',
    description:
      'The schedule this deployment’s worker applies, from the very settings and constants it uses: the attempt timeout, the backoff (base, cap, jitter), the retry window, when an endpoint is disabled, how long deliveries are kept, the nominal time of each attempt of a delivery that keeps failing, and the window an endpoint’s rate limit is enforced over.',
  })
  @ApiAnswer(200, EventDeliveryPolicyOutput)
  policy() {
    return envelope(deliveryPolicy(this.config));
  }
}
