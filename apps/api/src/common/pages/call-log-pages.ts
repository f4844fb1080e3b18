import type { TenantCaller } from '#libs/context';
import { type CallParent, UPSTREAM_CALL_KEY, type UpstreamCallsService } from '#libs/domain/upstream-calls';
import type { ListInput } from '../inputs/list.input.js';
import { keysetPage } from '../paging.js';

/** Where each parent's log is served: /v1/{collection}/{id}/upstream-calls. */
const COLLECTION: Record<CallParent, string> = {
  consent: 'consents',
  'sync-run': 'syncs',
  payment: 'payments',
};

/**
 * One page of a consent's, sync run's or payment's upstream call log, newest first, as its route answers
 * it: the routes and the MCP tool share it.
 */
export async function callLogPage(
  calls: UpstreamCallsService,
  caller: TenantCaller,
  parent: CallParent,
  id: string,
  query: ListInput,
) {
  const page = keysetPage(query, `/v1/${COLLECTION[parent]}/${id}/upstream-calls`, {
    key: UPSTREAM_CALL_KEY,
  });
  const { calls: items, nextBeforeId } = await calls.pageOf(caller, parent, id, page.limit, page.after);
  return page.answer(items, nextBeforeId);
}
