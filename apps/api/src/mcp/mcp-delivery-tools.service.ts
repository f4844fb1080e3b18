import { Injectable } from '@nestjs/common';
import { EventEndpointsService } from '#libs/domain/events';
import { checkedId } from '../common/id-param.js';
import { attemptsPage, deliveriesPage } from '../common/pages/delivery-pages.js';
import { DeliveryListInput, EndpointListInput } from './inputs/tool-arguments.input.js';
import { type Tool, tool } from './mcp-tool-kit.js';

/** The MCP tools over the merchant's event deliveries: why a webhook did or did not arrive. */
@Injectable()
export class McpDeliveryToolsService {
  constructor(private readonly endpoints: EventEndpointsService) {}

  tools(): Tool[] {
    return [
      tool({
        name: 'list_deliveries',
        route: 'GET /v1/event-endpoints/{id}/deliveries',
        description:
          "An event endpoint's deliveries, newest first (attempts, the last answer, the next attempt), as GET /v1/event-endpoints/{id}/deliveries.",
        input: EndpointListInput,
        read: (caller, args) =>
          deliveriesPage(this.endpoints, caller, checkedId('endpointId', args.endpointId), args),
      }),
      tool({
        name: 'list_delivery_attempts',
        route: 'GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts',
        description:
          "A delivery's attempts, newest first, each with the request sent and the answer or error, as GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts.",
        input: DeliveryListInput,
        read: (caller, args) => {
          const endpointId = checkedId('endpointId', args.endpointId);
          const deliveryId = checkedId('deliveryId', args.deliveryId);
          return attemptsPage(this.endpoints, caller, { endpointId, deliveryId }, args);
        },
      }),
    ];
  }
}
