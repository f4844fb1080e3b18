import { amountToApi } from '#libs/domain/accounts';

/**
 * Every numeric `amount` anywhere in an upstream record becomes a decimal string. The upstream puts money
 * in `{ amount, currency }` objects (and a transaction's top-level `amount`), so converting by key catches
 * every money field, including ones a newer upstream adds, without listing them; rates and counts have
 * other names and stay numbers. Converted in place: the records were parsed for this request alone, and
 * copying every record key by key cost more than the conversion.
 */
export function moneyToStrings<T>(value: T): T {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) moneyToStrings(value[i]);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const v = record[key];
    if (key === 'amount' && typeof v === 'number') record[key] = amountToApi(v);
    else if (v !== null && typeof v === 'object') moneyToStrings(v);
  }
  return value;
}
