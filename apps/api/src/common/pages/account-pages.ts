import type { TenantCaller } from '#libs/context';
import type { AccountsService } from '#libs/domain/accounts';
import type { SyncService } from '#libs/domain/sync';
import type { ListInput } from '../inputs/list.input.js';
import { keysetPage } from '../paging.js';

// The accounts' keyset lists, each one page as its route answers it: the route and its MCP tool share it.

/** GET /v1/users/{userId}/accounts: the user's accounts, oldest first. */
export async function userAccountsPage(
  accounts: AccountsService,
  caller: TenantCaller,
  userId: string,
  query: ListInput,
) {
  const page = keysetPage(query, `/v1/users/${encodeURIComponent(userId)}/accounts`);
  const { accounts: items, nextAfterId } = await accounts.listForUser(caller, userId, page.limit, page.after);
  return page.answer(items, nextAfterId);
}

/** GET /v1/accounts/{accountId}/syncs: the account's sync runs, newest first. */
export async function syncRunsPage(
  sync: SyncService,
  caller: TenantCaller,
  accountId: string,
  query: ListInput,
) {
  const page = keysetPage(query, `/v1/accounts/${encodeURIComponent(accountId)}/syncs`);
  const { runs, nextBeforeId } = await sync.listRuns(caller, accountId, page.limit, page.after);
  return page.answer(runs, nextBeforeId);
}
