import { invalidField, parseAmount } from './payment-amount.js';

type Money = { amount: string; currency: string };

/** The upstream's periodic-limit frequencies (its VrpPeriodicLimits). */
export const VRP_FREQUENCIES = ['DAILY', 'WEEKLY', 'EVERY_TWO_WEEKS', 'MONTHLY', 'YEARLY'];
export const VRP_ALIGNMENTS = ['CONSENT', 'CALENDAR'];

/** A VRP consent's limits as the merchant asks for them. */
export interface VrpControlInput {
  maxAmountPerPayment: Money;
  periodicLimits: { frequency: string; alignment?: string; totalMaxAmount: Money }[];
  psuAuthenticationMethods?: string[];
  validFrom?: string;
  validTo?: string;
}

/** The control parameters as we keep them: every default filled in, amounts as exact decimal strings. */
export interface StoredControlParameters {
  psuAuthenticationMethods: string[];
  maxAmountPerPayment: Money;
  periodicLimits: { frequency: string; alignment: string; totalMaxAmount: Money }[];
  validFrom: string;
  validTo?: string;
}

/**
 * The limits checked (one currency, each amount sane, dates in order, `now` the clock's) with every
 * default filled in, as they are kept: the one check of a sweeping consent's limits and of a hosted
 * request's. `limitField` names a limit in errors: the hosted request takes a single one.
 */
export function checkedControlParameters(
  input: VrpControlInput,
  now: Date,
  limitField = (i: number) => `controlParameters.periodicLimits[${i}]`,
): StoredControlParameters {
  const field = 'controlParameters';
  parseAmount(input.maxAmountPerPayment, `${field}.maxAmountPerPayment`);
  const currency = input.maxAmountPerPayment.currency;
  if (input.periodicLimits.length === 0) {
    throw invalidField(`${field}.periodicLimits`, 'must name at least one limit');
  }
  const seen = new Set<string>();
  const periodicLimits = input.periodicLimits.map((limit, i) => {
    const at = limitField(i);
    if (!VRP_FREQUENCIES.includes(limit.frequency)) {
      throw invalidField(`${at}.frequency`, `must be one of ${VRP_FREQUENCIES.join(', ')}`);
    }
    const alignment = limit.alignment ?? 'CONSENT';
    if (!VRP_ALIGNMENTS.includes(alignment)) {
      throw invalidField(`${at}.alignment`, `must be one of ${VRP_ALIGNMENTS.join(', ')}`);
    }
    if (seen.has(limit.frequency)) throw invalidField(`${at}.frequency`, 'is named twice');
    seen.add(limit.frequency);
    parseAmount(limit.totalMaxAmount, `${at}.totalMaxAmount`);
    if (limit.totalMaxAmount.currency !== currency) {
      throw invalidField(`${at}.totalMaxAmount.currency`, `must be ${currency}, as maxAmountPerPayment`);
    }
    return { frequency: limit.frequency, alignment, totalMaxAmount: limit.totalMaxAmount };
  });
  const validFrom = input.validFrom ? date(input.validFrom, `${field}.validFrom`) : now;
  const validTo = input.validTo ? date(input.validTo, `${field}.validTo`) : null;
  if (validTo && (validTo <= validFrom || validTo <= now)) {
    throw invalidField(`${field}.validTo`, 'must be after validFrom and in the future');
  }
  return {
    psuAuthenticationMethods: input.psuAuthenticationMethods ?? ['SCA_NOT_REQUIRED'],
    maxAmountPerPayment: input.maxAmountPerPayment,
    periodicLimits,
    validFrom: validFrom.toISOString(),
    ...(validTo ? { validTo: validTo.toISOString() } : {}),
  };
}

function date(value: string, field: string): Date {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw invalidField(field, 'must be an ISO 8601 date-time');
  return parsed;
}
