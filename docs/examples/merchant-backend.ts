// A merchant's backend on the BFF, with @open-banking-bff/merchant-sdk: it receives webhooks, creates a
// user, mints the session their browser will use, connects a bank (playing the user at the sandbox's bank
// page), follows the user's events as their browser would, and reads every transaction of the first sync.
//
//   BFF_URL=http://localhost:3000 BFF_API_KEY=mk_… node merchant-backend.js
//
// test/sdk-tarball.e2e-spec.ts installs the packed SDK into an empty project, type-checks this file with
// `tsc --strict` and runs it against a running stack, so it stays true.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BffEvent, createBffClient } from '@open-banking-bff/merchant-sdk';
import { verifyEvent, WebhookVerificationError } from '@open-banking-bff/merchant-sdk/webhooks';

const baseUrl = process.env.BFF_URL ?? 'http://localhost:3000';
const apiKey = process.env.BFF_API_KEY;
if (!apiKey) throw new Error('Set BFF_API_KEY to your merchant API key (mk_…)');
const deadline = Date.now() + Number(process.env.EXAMPLE_TIMEOUT_MS ?? 90_000);

// The backend's client: the merchant API key never leaves the server.
const bff = createBffClient({ baseUrl, token: apiKey });

// 1. A webhook endpoint. Deliveries are verified over the raw body before anything in them is used.
let secret = '';
const delivered: BffEvent[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      const event = verifyEvent(Buffer.concat(chunks), request.headers, secret);
      // Deliveries are at least once: deduplicate on the event id.
      if (!delivered.some((seen) => seen.id === event.id)) delivered.push(event);
      response.writeHead(204).end();
    } catch (error) {
      const refused = error instanceof WebhookVerificationError;
      response.writeHead(refused ? 401 : 500).end(refused ? error.code : 'error');
    }
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const { port } = receiver.address() as AddressInfo;
const endpoint = await bff.eventEndpoints.create({
  url: `http://127.0.0.1:${port}/webhooks/bff`,
  types: ['consent.authorized', 'sync.succeeded', 'transactions.changed'],
});
secret = endpoint.secret; // shown once: store it with the endpoint's id

// 2. A user (create-or-return by your own reference) and a session token for their browser.
const user = await bff.users.create({ reference: `customer-${Date.now()}` });
const session = await bff.sessions.create(user.id);

// 3. What the user's browser does with that token: follow their events. (A browser runs the same code;
//    `lastEventId: '0'` replays this new user's history, so nothing is missed before the stream opens.)
const browser = createBffClient({ baseUrl, token: session.token });
const stream = browser.events.stream(user.id, { lastEventId: '0' });
const streamed: BffEvent[] = [];
const following = (async () => {
  for await (const event of stream) streamed.push(event);
})();

// 4. Connect a bank: the answer has the bank's page for the user. The bank sends them back to your
//    frontend, which must be on one of your merchant's frontendOrigins once you list any.
const { frontendOrigins } = await bff.merchant.get();
const consent = await bff.consents.create(user.id, {
  institutionId: process.env.INSTITUTION_ID ?? 'sandbox-redirect',
  redirectUrl: new URL('/?from=bank', frontendOrigins[0] ?? 'https://shop.example').toString(),
});
const status = await approveAtTheBank(consent.authorisationUrl);
if (status !== 'AUTHORIZED') throw new Error(`the bank answered ${status}`);

// 5. The worker syncs the accounts at once; the stream says when the current account's first sync is done.
const accounts = await bff.accounts.list(user.id).toArray();
const current = accounts.find((account) => account.type === 'CURRENT') ?? accounts[0];
await until('the first sync of the current account', () =>
  streamed.some((event) => event.type === 'sync.succeeded' && event.data.accountId === current.id),
);

// 6. Every transaction, one page after another (the SDK follows `meta.nextCursor` to the last page)…
let transactions = 0;
let pages = 0;
for await (const page of bff.transactions(current.id, { limit: 100 }).pages()) {
  pages += 1;
  transactions += page.items.length;
}
// … or item by item: the debits of the last 30 days.
const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
let recentDebits = 0;
for await (const transaction of bff.transactions(current.id, { from })) {
  if (transaction.amount?.startsWith('-')) recentDebits += 1;
}

// 7. A copy of the user's transactions kept from the change feed: every page applied, the cursor kept for
// next time (after a `transactions.changed` event, say), when only what changed since comes back.
const copy = new Map<string, unknown>();
let cursor: string | undefined;
for (let more = true; more;) {
  const page = await bff.transactions.changes(user.id, { cursor, limit: 500 });
  for (const { accountId, transaction } of [...page.added, ...page.modified])
    copy.set(`${accountId}/${transaction.id}`, transaction);
  for (const { accountId, id } of page.removed) copy.delete(`${accountId}/${id}`);
  ({ nextCursor: cursor, hasMore: more } = page);
}

// 8. The same events reached the webhook endpoint, verified.
await until('the webhook deliveries', () =>
  ['consent.authorized', 'sync.succeeded'].every((type) => delivered.some((event) => event.type === type)),
);

stream.close();
await following;
receiver.closeAllConnections();
receiver.close();
console.log(
  JSON.stringify({
    userId: user.id,
    sessionExpiresAt: session.expiresAt,
    consentId: consent.id,
    accountId: current.id,
    transactions,
    pages,
    mirrored: copy.size,
    mirroredCurrent: [...copy.keys()].filter((key) => key.startsWith(`${current.id}/`)).length,
    recentDebits,
    streamed: streamed.map((event) => event.type),
    lastEventId: stream.lastEventId,
    delivered: delivered.map((event) => event.type),
  }),
);

/**
 * The user's part, which only the sandbox lets a script play: approve on the bank's page, which sends the
 * browser back through the BFF to the merchant's redirectUrl with the consent's status.
 */
async function approveAtTheBank(authorisationUrl: string): Promise<string | null> {
  const atBank = await fetch(authorisationUrl, {
    method: 'POST',
    body: new URLSearchParams({ decision: 'approve' }),
    redirect: 'manual',
  });
  const callback = await fetch(atBank.headers.get('location') ?? '', { redirect: 'manual' });
  return new URL(callback.headers.get('location') ?? '', baseUrl).searchParams.get('status');
}

/** Waits until `done()` holds, looking every 200 ms, failing at the script's deadline. */
async function until(what: string, done: () => boolean): Promise<void> {
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
