import { fromMinor } from '../core/index.js';
import { type BodyPieces, JsonPieces } from './json-pieces.js';
import type { SandboxAccount } from './sandbox-account.js';
import type { SandboxTransaction, TransactionKind } from './sandbox-records.js';
import { transactionHash } from './seeded-random.js';
import { cleansedDescription, REAL_TIME, WITH_CATEGORISATION, WITH_MERCHANT } from './wire-format.js';

/*
 * `transactionWire` written straight to JSON text, byte for byte what JSON.stringify makes of it (a unit
 * test holds the two together): pages are generated on every request, and building then stringifying a
 * nested object per record cost more than the rest of the page (`npm run bench -- --only sandbox-page`).
 */

const q = JSON.stringify;

/** The bank transaction codes of a kind never change: serialised once. */
const codesJson = new WeakMap<TransactionKind, string>();
function isoCodes(kind: TransactionKind): string {
  let json = codesJson.get(kind);
  if (json === undefined) {
    json = q({ domainCode: kind.domain, familyCode: kind.family, subFamilyCode: kind.subFamily });
    codesJson.set(kind, json);
  }
  return json;
}

const money = (minor: number, currency: string, currencyJson: string) =>
  `{"amount":${fromMinor(minor, currency)},"currency":${currencyJson}}`;

export function transactionJson(
  tx: SandboxTransaction,
  account: SandboxAccount,
  institutionJson: string,
  variant: number,
): string {
  const date = q(new Date(tx.timeMs).toISOString());
  const currency = q(account.currency);
  const realTime = (variant & REAL_TIME) !== 0;
  const description = q(tx.description);
  let json = `{"id":${q(tx.id)},"date":${date},"bookingDateTime":${date},"valueDateTime":${date},"status":${q(tx.status)}`;
  if (!realTime) json += `,"amount":${fromMinor(tx.amountMinor, account.currency)},"currency":${currency}`;
  json += `,"transactionAmount":${money(tx.amountMinor, account.currency, currency)}`;
  if (tx.reference !== undefined) json += `,"reference":${q(tx.reference)}`;
  json += `,"description":${description},"transactionInformation":[${description}]`;
  json += `,"isoBankTransactionCode":${isoCodes(tx.kind)}`;
  json += `,"proprietaryBankTransactionCode":{"code":${q(tx.kind.proprietary)},"issuer":${institutionJson}}`;
  if (tx.balanceMinor !== undefined) {
    json += `,"balance":{"type":"CLOSING_AVAILABLE","balanceAmount":${money(tx.balanceMinor, account.currency, currency)}}`;
  }
  const party = tx.counterparty;
  if (party) {
    json += `,"${tx.amountMinor < 0 ? 'payeeDetails' : 'payerDetails'}":{"name":${q(party.name)},"accountIdentifications":[{"type":"SORT_CODE","identification":${q(party.sortCode)}},{"type":"ACCOUNT_NUMBER","identification":${q(party.accountNumber)}}]}`;
  }
  const merchant = tx.merchant;
  if (merchant) {
    json += `,"merchant":{"merchantName":${q(merchant.name)},"merchantCategoryCode":${q(merchant.mcc)}}`;
  }
  if (realTime) return `${json}}`;
  json += ',"enrichment":{';
  if (variant & WITH_CATEGORISATION)
    json += `"categorisation":{"categories":[${q(tx.category)}],"source":"MODEL"},`;
  json += `"transactionHash":{"hash":"${transactionHash(`${account.id}:${tx.seq}`)}"}`;
  if (variant & WITH_MERCHANT) {
    json += `,"cleansedDescription":${q(cleansedDescription(tx))}`;
    if (merchant) {
      json += `,"merchant":{"merchantName":${q(merchant.name)},"parentGroup":${q(merchant.parentGroup)}}`;
    }
  }
  return `${json}},"transactionMutability":"${tx.status === 'BOOKED' ? 'Immutable' : 'Mutable'}"}`;
}

/**
 * A list body, `{"meta":…,"data":[…],"links":…}`, around a page's records, written as pieces (JsonPieces):
 * each record's text goes into the body as it is made.
 */
export function listPieces(
  meta: unknown,
  records: readonly SandboxTransaction[],
  account: SandboxAccount,
  institutionId: string,
  variant: number,
  links: unknown,
): BodyPieces {
  const institutionJson = q(institutionId);
  const body = new JsonPieces();
  body.add(`{"meta":${q(meta)},"data":[`);
  for (let i = 0; i < records.length; i += 1) {
    if (i > 0) body.add(',');
    body.add(transactionJson(records[i], account, institutionJson, variant));
  }
  body.add(`],"links":${q(links)}}`);
  return body.end();
}
