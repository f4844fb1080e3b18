import type { ConsentRecord } from '../../core/index.js';

/** Everything interpolated into the page goes through this: ids, names and details come from clients. */
export function escapeHtml(value: string | number | undefined): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{font-weight:600}
.banner{background:#fff4d6;border:1px solid #e8c66a;padding:.5rem .75rem;border-radius:.4rem;font-size:.9rem}
button{font-size:1rem;padding:.6rem 1.4rem;margin-right:.8rem;border-radius:.4rem;border:1px solid #555;cursor:pointer}
button[value=approve]{background:#1f6feb;color:#fff;border-color:#1f6feb}`;

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><p class="banner">Sandbox bank: no real bank or money is involved.</p>
${body}
</body></html>`;
}

type Obj = Record<string, unknown>;

/** A scalar as text; anything else (objects from an unexpected details shape) as nothing. */
const text = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function money(value: unknown, currency?: unknown): string | undefined {
  if (isObj(value) && value.amount !== undefined)
    return `${text(value.amount)} ${text(value.currency)}`.trim();
  if (typeof value === 'number' || typeof value === 'string') return `${value} ${text(currency)}`.trim();
  return undefined;
}

function party(value: unknown): string | undefined {
  if (!isObj(value)) return undefined;
  const ids = Array.isArray(value.accountIdentifications)
    ? value.accountIdentifications
        .filter(isObj)
        .map((i) => `${text(i.type)} ${text(i.identification)}`.trim())
        .join(', ')
    : '';
  return [text(value.name), ids].filter((v) => v).join(' · ') || undefined;
}

/**
 * What a payment or VRP consent asks for, from whatever request its module stored in `details`: the
 * page looks in the details and in their usual sub-objects for amounts, payee, payer and reference.
 */
export function paymentFacts(details: Obj | undefined): [string, string][] {
  if (!details) return [];
  const sources = [
    details,
    details.paymentRequest,
    details.request,
    details.initiationDetails,
    details.controlParameters,
  ].filter(isObj);
  const pick = <T>(f: (s: Obj) => T | undefined): T | undefined => {
    for (const source of sources) {
      const found = f(source);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const facts: [string, string | undefined][] = [
    ['Amount', pick((s) => money(s.paymentAmount) ?? money(s.amount, s.currency))],
    ['Payee', pick((s) => party(s.payee))],
    ['From account', pick((s) => party(s.payer))],
    ['Reference', pick((s) => (typeof s.reference === 'string' ? s.reference : undefined))],
    ['Maximum per payment', pick((s) => money(s.maxAmountPerPayment))],
    [
      'Periodic limits',
      pick((s) =>
        Array.isArray(s.periodicLimits)
          ? s.periodicLimits
              .filter(isObj)
              .map((l) => `${money(l.totalMaxAmount) ?? ''} ${text(l.frequency)}`.trim())
              .join(', ')
          : undefined,
      ),
    ],
  ];
  return facts.filter((f): f is [string, string] => Boolean(f[1]));
}

export function requestFacts(record: ConsentRecord): [string, string][] {
  if (record.kind !== 'ACCOUNT') return paymentFacts(record.details);
  const facts: [string, string][] = [['Access to', record.featureScope.join(', ')]];
  facts.push(['Until', record.expiresAt ?? '90 days after you approve']);
  if (record.transactionFrom || record.transactionTo) {
    facts.push([
      'Transactions',
      `${record.transactionFrom ?? 'earliest'} to ${record.transactionTo ?? 'latest'}`,
    ]);
  }
  return facts;
}

const KIND_TITLES: Record<string, string> = {
  ACCOUNT: 'access your account information',
  PAYMENT: 'make a payment from your account',
  VRP_SWEEPING: 'set up sweeping variable recurring payments',
};

export function consentPage(input: {
  record: ConsentRecord;
  institutionName: string;
  applicationName: string;
  action: string;
}): string {
  const { record } = input;
  const facts = requestFacts(record)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`)
    .join('');
  const again = record.status === 'AWAITING_RE_AUTHORIZATION' ? ' again' : '';
  return page(
    `${input.institutionName}: authorise`,
    `<h1>${escapeHtml(input.institutionName)}</h1>
<p><strong>${escapeHtml(input.applicationName)}</strong> asks for your permission${again} to ${escapeHtml(KIND_TITLES[record.kind] ?? 'act on your account')}.</p>
<dl><dt>Consent</dt><dd>${escapeHtml(record.id)}</dd><dt>Customer</dt><dd>${escapeHtml(record.applicationUserId ?? record.userUuid)}</dd>${facts}</dl>
<form method="post" action="${escapeHtml(input.action)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
