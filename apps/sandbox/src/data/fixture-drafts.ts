import {
  BILLERS,
  EATING_OUT,
  FIRST_NAMES,
  GROCERIES,
  KINDS,
  LAST_NAMES,
  SHOPPING,
  SUBSCRIPTIONS,
  TRANSFER_REFERENCES,
  TRANSPORT,
} from './fixture-catalogue.js';
import type { Counterparty, MerchantFixture, SandboxTransaction } from './sandbox-records.js';
import type { SeededRandom } from './seeded-random.js';

/*
 * What one generated transaction is, drawn from the day's generator. `currentAccountAmount` makes exactly
 * the draws `currentAccountDraft` makes and returns only the amount: balances need every amount since
 * the balance epoch, and building a thousand days of descriptions only to add up their amounts would
 * cost far more. A unit test holds the two to the same draws.
 */

export function counterpartyFrom(random: SeededRandom): Counterparty {
  return {
    name: `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`,
    sortCode: random.digits(6),
    accountNumber: random.digits(8),
  };
}

function ddmm(timeMs: number): string {
  const d = new Date(timeMs);
  return `${String(d.getUTCDate()).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

export type Draft = Omit<SandboxTransaction, 'id' | 'seq' | 'timeMs' | 'status'>;

function cardPayment(random: SeededRandom, merchant: MerchantFixture, timeMs: number): Draft {
  return {
    amountMinor: -random.int(merchant.minMinor, merchant.maxMinor),
    description: `${merchant.descriptor} ${ddmm(timeMs)}`,
    reference: `POS ${random.digits(4)}`,
    kind: KINDS.card,
    category: merchant.category,
    merchant,
  };
}

export function currentAccountDraft(random: SeededRandom, timeMs: number, person: Counterparty[]): Draft {
  // Weights tuned so two years of spending roughly matches salary and incoming transfers.
  const roll = random.weighted(WEIGHTS, WEIGHT_TOTAL);
  switch (roll) {
    case 0:
      return cardPayment(random, random.pick(GROCERIES), timeMs);
    case 1:
      return cardPayment(random, random.pick(EATING_OUT), timeMs);
    case 2:
      return cardPayment(random, random.pick(TRANSPORT), timeMs);
    case 3:
      return cardPayment(random, random.pick(SHOPPING), timeMs);
    case 4:
      return cardPayment(random, random.pick(SUBSCRIPTIONS), timeMs);
    case 5: {
      const biller = random.pick(BILLERS);
      return {
        amountMinor: -random.int(biller.minMinor, biller.maxMinor),
        description: `DIRECT DEBIT ${biller.name.toUpperCase()}`,
        reference: `DD${random.digits(9)}`,
        kind: KINDS.directDebit,
        category: biller.category,
        counterparty: { name: biller.name, sortCode: random.digits(6), accountNumber: random.digits(8) },
      };
    }
    case 6: {
      const payee = random.pick(person);
      return {
        amountMinor: -random.int(1000, 25000),
        description: `FASTER PAYMENT TO ${payee.name.toUpperCase()}`,
        reference: random.pick(TRANSFER_REFERENCES),
        kind: KINDS.transferOut,
        category: 'transfers',
        counterparty: payee,
      };
    }
    case 7:
      return {
        amountMinor: -random.int(1, 15) * 1000,
        description: `CASH WITHDRAWAL ${random.pick(['BARCLAYS', 'HSBC', 'NATWEST', 'LLOYDS'])} ATM`,
        reference: `ATM ${random.digits(6)}`,
        kind: KINDS.atm,
        category: 'cash',
      };
    case 8: {
      const payer = random.pick(person);
      return {
        amountMinor: random.int(500, 30000),
        description: `FASTER PAYMENT FROM ${payer.name.toUpperCase()}`,
        reference: random.pick(TRANSFER_REFERENCES),
        kind: KINDS.transferIn,
        category: 'transfers',
        counterparty: payer,
      };
    }
    default: {
      const merchant = random.pick([...GROCERIES, ...SHOPPING]);
      return {
        amountMinor: random.int(merchant.minMinor, merchant.maxMinor),
        description: `REFUND ${merchant.descriptor}`,
        reference: `REF ${random.digits(6)}`,
        kind: KINDS.refund,
        category: 'refund',
        merchant,
      };
    }
  }
}

const WEIGHTS = [22, 24, 14, 11, 2, 4, 5, 2, 13, 3];
const WEIGHT_TOTAL = WEIGHTS.reduce((a, b) => a + b, 0);

const CARD_MERCHANTS = [GROCERIES, EATING_OUT, TRANSPORT, SHOPPING, SUBSCRIPTIONS];
const REFUND_MERCHANTS = [...GROCERIES, ...SHOPPING];

/** The amount `currentAccountDraft` would draw, with the same draws in the same order. */
export function currentAccountAmount(random: SeededRandom): number {
  const roll = random.weighted(WEIGHTS, WEIGHT_TOTAL);
  switch (roll) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4: {
      const merchant = random.pick(CARD_MERCHANTS[roll]);
      const amount = -random.int(merchant.minMinor, merchant.maxMinor);
      random.skip(4); // reference
      return amount;
    }
    case 5: {
      const biller = random.pick(BILLERS);
      const amount = -random.int(biller.minMinor, biller.maxMinor);
      random.skip(9 + 6 + 8); // reference, sort code, account number
      return amount;
    }
    case 6: {
      random.skip(1); // payee
      const amount = -random.int(1000, 25000);
      random.skip(1); // reference
      return amount;
    }
    case 7: {
      const amount = -random.int(1, 15) * 1000;
      random.skip(1 + 6); // bank, reference
      return amount;
    }
    case 8: {
      random.skip(1); // payer
      const amount = random.int(500, 30000);
      random.skip(1); // reference
      return amount;
    }
    default: {
      const merchant = random.pick(REFUND_MERCHANTS);
      const amount = random.int(merchant.minMinor, merchant.maxMinor);
      random.skip(6); // reference
      return amount;
    }
  }
}
