// Pictures of an account's transactions, drawn as SVG from the local data alone (no image services).
// Money stays exact: decimal strings become integer minor units, summed, and printed back.

/** "-22.48" → -2248 (two decimals, as the sandbox's GBP; more are cut to the currency's two). */
export function toMinor(amount) {
  const negative = amount.startsWith('-');
  const [whole, fraction = ''] = amount.replace(/^[-+]/, '').split('.');
  const minor = Number(whole) * 100 + Number((fraction + '00').slice(0, 2));
  return negative ? -minor : minor;
}

export function formatMinor(minor, currency) {
  return new Intl.NumberFormat('en-GB', { style: 'currency', currency }).format(minor / 100);
}

/** Merchant category codes (ISO 18245) grouped into the few categories people think in. */
const CATEGORY_BY_MCC = [
  [5411, 5499, 'Groceries'],
  [5811, 5814, 'Eating out'],
  [4111, 4789, 'Transport'],
  [5541, 5542, 'Fuel'],
  [4812, 4900, 'Bills and utilities'],
  [5200, 5399, 'Shopping'],
  [5600, 5699, 'Clothing'],
  [5912, 5912, 'Health'],
  [7800, 7999, 'Entertainment'],
];

export function categoryOf(transaction) {
  const code = Number(transaction.merchant?.merchantCategoryCode);
  const found = CATEGORY_BY_MCC.find(([from, to]) => code >= from && code <= to);
  return found ? found[2] : 'Other';
}

/** The twelve calendar months (UTC) ending with `now`'s, oldest first, as `YYYY-MM`. */
export function lastTwelveMonths(now = new Date()) {
  const months = [];
  for (let i = 11; i >= 0; i--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    months.push(d.toISOString().slice(0, 7));
  }
  return months;
}

/** Money spent (outgoing, booked and pending) per month and per category, and the balance per day. */
export function summarise(transactions, now = new Date()) {
  const months = lastTwelveMonths(now);
  const byMonth = new Map(months.map((m) => [m, 0]));
  const byCategory = new Map();
  const balanceByDay = new Map();
  for (const t of transactions) {
    const month = t.date.slice(0, 7);
    const minor = toMinor(t.amount);
    if (minor < 0 && byMonth.has(month)) {
      byMonth.set(month, byMonth.get(month) - minor);
      const category = categoryOf(t);
      byCategory.set(category, (byCategory.get(category) ?? 0) - minor);
    }
    const balance = t.balance?.balanceAmount?.amount;
    const day = t.date.slice(0, 10);
    // Newest first: the first balance seen for a day is its closing one.
    if (balance !== undefined && !balanceByDay.has(day)) balanceByDay.set(day, toMinor(balance));
  }
  const days = [...balanceByDay.entries()].sort(([a], [b]) => a.localeCompare(b));
  return {
    byMonth: [...byMonth.entries()],
    byCategory: [...byCategory.entries()].sort((a, b) => b[1] - a[1]),
    days,
  };
}

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A bar chart: one labelled bar per entry, each carrying its exact total for people and tests. */
export function barChart(title, entries, currency, id) {
  const width = 720;
  const barH = 22;
  const height = 30 + entries.length * (barH + 6);
  const max = Math.max(1, ...entries.map(([, v]) => v));
  const bars = entries
    .map(([label, value], i) => {
      const y = 30 + i * (barH + 6);
      const w = Math.round((value / max) * 420);
      return `<g class="bar" data-label="${esc(label)}" data-total-minor="${value}">
        <text x="0" y="${y + 15}" font-size="13">${esc(label)}</text>
        <rect x="150" y="${y}" width="${w}" height="${barH}" fill="#4a6cf7" rx="3"></rect>
        <text x="${160 + w}" y="${y + 15}" font-size="13">${esc(formatMinor(value, currency))}</text>
      </g>`;
    })
    .join('');
  return `<svg id="${id}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}">
    <text x="0" y="16" font-size="15" font-weight="600">${esc(title)}</text>${bars}</svg>`;
}

/** The balance at each day's close, as a line. */
export function lineChart(title, days, currency, id) {
  const width = 720;
  const height = 220;
  if (days.length < 2) return `<p class="muted">${esc(title)}: not enough data yet.</p>`;
  const values = days.map(([, v]) => v);
  const [min, max] = [Math.min(...values), Math.max(...values)];
  const x = (i) => 60 + (i / (days.length - 1)) * (width - 80);
  const y = (v) => 40 + (1 - (v - min) / Math.max(1, max - min)) * (height - 70);
  const points = days.map(([, v], i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return `<svg id="${id}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}">
    <text x="0" y="16" font-size="15" font-weight="600">${esc(title)}</text>
    <text x="0" y="${y(max) + 4}" font-size="11">${esc(formatMinor(max, currency))}</text>
    <text x="0" y="${y(min) + 4}" font-size="11">${esc(formatMinor(min, currency))}</text>
    <polyline points="${points}" fill="none" stroke="#4a6cf7" stroke-width="2"></polyline>
    <text x="60" y="${height - 8}" font-size="11">${esc(days[0][0])}</text>
    <text x="${width - 90}" y="${height - 8}" font-size="11">${esc(days.at(-1)[0])}</text></svg>`;
}
