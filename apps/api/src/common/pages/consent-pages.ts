import type { TenantCaller } from '#libs/context';
import type { ConsentsService } from '#libs/domain/consents';
import type { ListInput } from '../inputs/list.input.js';
import { keysetPage } from '../paging.js';

// The consents' keyset lists, each one page as its route answers it: the route and its MCP tool share it.

/** The history's cursor: the number of the last change served (below 10^18, so always a bigint). */
const CHANGE_NUMBER = /^[1-9][0-9]{0,17}$/;

/** GET /v1/users/{userId}/consents: the user's consents, newest first. */
export async function userConsentsPage(
  consents: ConsentsService,
  caller: TenantCaller,
  userId: string,
  query: ListInput,
) {
  const page = keysetPage(query, `/v1/users/${encodeURIComponent(userId)}/consents`);
  const { consents: items, nextBeforeId } = await consents.listForUser(
    caller,
    userId,
    page.limit,
    page.after,
  );
  return page.answer(items, nextBeforeId);
}

/** GET /v1/consents/{consentId}/history: the consent's status changes, oldest first. */
export async function consentHistoryPage(
  consents: ConsentsService,
  caller: TenantCaller,
  consentId: string,
  query: ListInput,
) {
  const page = keysetPage(query, `/v1/consents/${encodeURIComponent(consentId)}/history`, {
    key: CHANGE_NUMBER,
  });
  const { changes, nextAfterId } = await consents.statusHistory(caller, consentId, page.limit, page.after);
  return page.answer(changes, nextAfterId);
}
