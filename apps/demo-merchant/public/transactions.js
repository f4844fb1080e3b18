// 4. Transactions, 25 at a time, and 5. the pictures of the last 12 months: both read the BFF's store,
// paged by the SDK.
import { barChart, lineChart, summarise } from './charts.js';
import { $, errorText, money, row, show, state } from './ui.js';

/** The list on screen (the SDK's PagedList of the chosen account and filters) and its next page's cursor. */
let shown = { list: null, next: null };

/** The first page of the chosen account and filters (fresh), or the next page of the list on screen. */
export async function loadTransactions(fresh) {
  const account = $('tx-account').value;
  if (!account) return;
  if (fresh || !shown.list) {
    const query = { limit: 25 };
    if ($('tx-from').value) query.from = new Date($('tx-from').value).toISOString();
    if ($('tx-before').value) query.before = new Date($('tx-before').value).toISOString();
    if ($('tx-status').value) query.status = $('tx-status').value;
    shown = { list: state.bff.transactions(account, query), next: null };
    $('tx-table').tBodies[0].replaceChildren();
  }
  const list = shown.list;
  try {
    const page = await list.page(shown.next ?? undefined);
    // Another choice was made while this page was on its way: it is not the list on screen any more.
    if (list !== shown.list) return;
    for (const t of page.items) {
      const tr = row([
        t.date.slice(0, 10),
        t.description ?? '',
        t.status === 'PENDING' ? 'pending' : 'booked',
        [money(t.amount, t.currency), 'num'],
      ]);
      tr.className = t.status === 'PENDING' ? 'pending' : '';
      $('tx-table').tBodies[0].append(tr);
    }
    shown.next = page.nextCursor;
    $('tx-more').hidden = !shown.next;
    show('tx-error', '');
  } catch (error) {
    show('tx-error', errorText(error), true);
  }
}

/** Every transaction of the last 12 months (`for await` follows the pages), drawn as SVG. */
export async function drawPictures() {
  const account = $('tx-account').value;
  if (!account) return;
  const now = new Date();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString();
  const all = [];
  try {
    for await (const t of state.bff.transactions(account, { limit: 1000, from })) all.push(t);
  } catch (error) {
    return show('tx-error', errorText(error), true);
  }
  const currency = all[0]?.currency ?? 'GBP';
  const summary = summarise(all);
  $('chart-month').innerHTML = barChart('Spent per month', summary.byMonth, currency, 'svg-month');
  $('chart-category').innerHTML = barChart(
    'Spent per category',
    summary.byCategory,
    currency,
    'svg-category',
  );
  $('chart-balance').innerHTML = lineChart(
    'Balance at each day’s close',
    summary.days,
    currency,
    'svg-balance',
  );
}
