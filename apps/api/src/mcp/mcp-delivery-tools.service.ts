import { Injectable } from '@nestjs/common';
import { EventEndpointsService } from '#libs/domain/events';
import { checkedId } from '../common/id-param.js';
import { keysetPage } from '../common/paging.js';
import { DeliveryListInput, EndpointListInput } from './inputs/tool-arguments.input.js';
import { ATTEMPT_NUMBER, type Tool, tool } from './mcp-tool-kit.js';

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
        read: async (caller, args) => {
          const endpointId = checkedId('endpointId', args.endpointId);
          const page = keysetPage(args, `/v1/event-endpoints/${endpointId}/deliveries`);
          const rows = await this.endpoints.deliveriesOf(caller, endpointId, {
            beforeId: page.after ?? null,
            limit: page.limit + 1,
          });
          const items = rows.slice(0, page.limit);
          return page.answer(items, rows.length > page.limit ? items[items.length - 1].id : null);
        },
      }),
      tool({
        name: 'list_delivery_attempts',
        route: 'GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts',
        description:
          "A delivery's attempts, newest first, each with the request sent and the answer or error, as GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts.",
        input: DeliveryListInput,
        read: async (caller, args) => {
          const endpointId = checkedId('endpointId', args.endpointId);
          const deliveryId = checkedId('deliveryId', args.deliveryId);
          const path = `/v1/event-endpoints/${endpointId}/deliveries/${deliveryId}/attempts`;
          const page = keysetPage(args, path, { key: ATTEMPT_NUMBER });
          const rows = await this.endpoints.attemptsOf(caller, endpointId, deliveryId, {
            beforeAttempt: page.after === undefined ? null : Number(page.after),
            limit: page.limit + 1,
          });
          const items = rows.slice(0, page.limit);
          return page.answer(
            items,
            rows.length > page.limit ? String(items[items.length - 1].attempt) : null,
          );
        },
      }),
    ];
  }
}
