import type { TenantCaller } from '#libs/context';
import type { EventEndpointsService } from '#libs/domain/events';
import type { ListInput } from '../inputs/list.input.js';
import { keysetPage } from '../paging.js';

// An endpoint's delivery log, one page as its route answers it: the route and its MCP tool share it. The
// service is asked for one more than the page: whether it exists says whether there is a next page.

/** An attempts page's cursor: the attempt number it continues below. */
const ATTEMPT_NUMBER = /^[1-9]\d{0,8}$/;

/** GET /v1/event-endpoints/{id}/deliveries: the endpoint's deliveries, newest first. */
export async function deliveriesPage(
  endpoints: EventEndpointsService,
  caller: TenantCaller,
  endpointId: string,
  query: ListInput,
) {
  const page = keysetPage(query, `/v1/event-endpoints/${encodeURIComponent(endpointId)}/deliveries`);
  const { limit } = page;
  const rows = await endpoints.deliveriesOf(caller, endpointId, {
    beforeId: page.after ?? null,
    limit: limit + 1,
  });
  const items = rows.slice(0, limit);
  return page.answer(items, rows.length > limit ? items[items.length - 1].id : null);
}

/** GET /v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts: a delivery's attempts, newest first. */
export async function attemptsPage(
  endpoints: EventEndpointsService,
  caller: TenantCaller,
  ids: { endpointId: string; deliveryId: string },
  query: ListInput,
) {
  const { endpointId, deliveryId } = ids;
  const page = keysetPage(
    query,
    `/v1/event-endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/attempts`,
    { key: ATTEMPT_NUMBER },
  );
  const { limit } = page;
  const rows = await endpoints.attemptsOf(caller, endpointId, deliveryId, {
    beforeAttempt: page.after === undefined ? null : Number(page.after),
    limit: limit + 1,
  });
  const items = rows.slice(0, limit);
  return page.answer(items, rows.length > limit ? String(items[items.length - 1].attempt) : null);
}
