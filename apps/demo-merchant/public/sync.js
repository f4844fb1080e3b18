// 3. The first sync, live: each account's own runs say how far it is (read, never asked for), and
// `consent.synced` says when a connection's first syncs have all ended, with what they stored.
import { drawPictures, loadTransactions } from './transactions.js';
import { $, errorText, money, pause, show, state } from './ui.js';

/** The connections whose first syncs have all ended: consentId → consent.synced's data. */
const firstSyncs = new Map();
/** Connections seen with an account still on its first sync: their consent.synced is waited for. */
const seenSyncing = new Set();

export function noteSyncEvent(event) {
  if (event.type === 'consent.synced') firstSyncs.set(event.data.consentId, event.data);
}

const onFirstSync = (account) => ['pending', 'syncing'].includes(account.sync?.status);

let following = false;
/** Until every connection's first sync has ended: the progress bar and its figures, then the transactions. */
export async function followSyncs() {
  if (following) return;
  following = true;
  try {
    for (;;) {
      await refreshAccounts();
      const accounts = state.accounts;
      for (const account of accounts) if (onFirstSync(account)) seenSyncing.add(account.consentId);
      const ended = (account) => firstSyncs.has(account.consentId) || !onFirstSync(account);
      const running = accounts.filter((account) => !ended(account));
      const runs = await Promise.all(running.map(latestRun));
      const fetched = runs.reduce((n, run) => n + (run?.progress?.fetched ?? 0), 0);
      const ready = [...new Set(accounts.map((a) => a.consentId))].filter((id) => firstSyncs.has(id));
      const stored = ready.reduce((n, id) => n + firstSyncs.get(id).inserted, 0);
      const done = accounts.length - running.length;
      $('sync-progress').max = Math.max(1, accounts.length);
      $('sync-progress').value = done;
      show(
        'sync-status',
        `${done} of ${accounts.length} accounts synced; ${stored} transactions stored by the first syncs` +
          (running.length > 0 ? `, ${fetched} fetched so far by those still running` : ''),
      );
      const waiting = [...seenSyncing].some((id) => !firstSyncs.has(id));
      if (accounts.length > 0 && running.length === 0 && !waiting) {
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

/** The account's newest run: while its first sync runs, that one. */
async function latestRun(account) {
  const { items } = await state.bff.syncs.list(account.id, { limit: 1 }).page();
  return items[0];
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
