// 3. The first sync, live: the events say something moved, the sync runs say how far each account is.
import { drawPictures, loadTransactions } from './transactions.js';
import { $, errorText, money, pause, show, state } from './ui.js';

/** Each account's last finished run's figures, from its `sync.succeeded` event. */
const progressByAccount = new Map();

export function noteSyncEvent(event) {
  if (event.type === 'sync.succeeded') progressByAccount.set(event.data.accountId, event.data.progress);
}

let following = false;
/** Until every account has synced: the progress bar and its figures, then the transactions and pictures. */
export async function followSyncs() {
  if (following) return;
  following = true;
  try {
    for (;;) {
      await refreshAccounts();
      const runs = await Promise.all(state.accounts.map(runOf));
      const done = runs.filter((r) => r.status === 'succeeded' || r.status === 'failed').length;
      const pages = runs.reduce((n, r) => n + (r.progress?.pages ?? 0), 0);
      const fetched = runs.reduce((n, r) => n + (r.progress?.fetched ?? 0), 0);
      $('sync-progress').max = Math.max(1, runs.length);
      $('sync-progress').value = done;
      show(
        'sync-status',
        `${done} of ${runs.length} accounts synced; ${pages} pages, ${fetched} transactions fetched`,
      );
      if (runs.length > 0 && done === runs.length) {
        $('sync-status').dataset.done = 'true';
        await Promise.all([loadTransactions(true), drawPictures()]);
        return;
      }
      await pause(700);
    }
  } catch (error) {
    show('sync-status', errorText(error), true);
  } finally {
    following = false;
  }
}

/**
 * Where an account's sync stands. Only an account still on its way has a run to follow (asking for a sync
 * of it answers the active run, not a new one); the others are as done as they get.
 */
async function runOf(account) {
  if (!['pending', 'syncing'].includes(account.sync?.status)) {
    return { status: 'succeeded', progress: progressByAccount.get(account.id) };
  }
  const { syncId } = await state.bff.syncs.request(account.id);
  const run = syncId ? await state.bff.syncs.get(syncId) : null;
  return { status: run?.status ?? 'queued', progress: run?.progress };
}

export async function refreshAccounts() {
  state.accounts = await state.bff.accounts.list(state.customer.id).toArray();
  const box = $('accounts');
  box.replaceChildren();
  const select = $('tx-account');
  const chosen = select.value;
  select.replaceChildren();
  for (const account of state.accounts) {
    const balance = account.balances?.[0]?.balance;
    const div = document.createElement('div');
    div.className = 'account';
    div.dataset.accountId = account.id;
    div.textContent = `${account.nickname ?? account.type ?? 'Account'}: ${
      balance ? money(balance.amount, balance.currency) : '—'
    } (${account.sync?.status ?? 'unknown'})`;
    box.append(div);
    select.add(new Option(`${account.nickname ?? account.type} ${account.id.slice(-6)}`, account.id));
  }
  if (chosen) select.value = chosen;
}
