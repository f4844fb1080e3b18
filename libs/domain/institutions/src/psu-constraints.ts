import { invalidRequest } from '#libs/errors';
import type {
  ConstraintSchema,
  InstitutionConstraint,
  PsuHeaders,
  UpstreamClient,
} from '#libs/upstream-client';
import type { InstitutionConstraints, InstitutionRecord, PsuHeaderNeeds } from './institution.repository.js';

/** Institutions named in one constraints call: the ids travel comma-separated in its query string. */
const IDS_PER_CALL = 50;

/**
 * The PSU headers by the names a constraints schema may give them (`psuId`, `psuID`, `psu-id`, …),
 * compared without case or punctuation.
 */
const HEADER_BY_KEY: Readonly<Record<string, string>> = {
  psuid: 'psu-id',
  psucorporateid: 'psu-corporate-id',
  psuipaddress: 'psu-ip-address',
};

/** A property the schema makes mandatory: listed in `required`, or described as mandatory. */
const mandatory = (schema: ConstraintSchema | undefined, name: string) =>
  Boolean(schema?.required?.includes(name)) ||
  /^\s*_*mandatory/i.test(schema?.properties?.[name]?.description ?? '');

/** The PSU headers a rule's header schema makes mandatory. */
export function requiredPsuHeaders(schema: ConstraintSchema | undefined): string[] {
  const found = new Set<string>();
  for (const name of Object.keys(schema?.properties ?? {})) {
    const header = HEADER_BY_KEY[name.toLowerCase().replace(/[^a-z]/g, '')];
    if (header && mandatory(schema, name)) found.add(header);
  }
  return [...found].sort();
}

const union = (rules: InstitutionConstraint[]) =>
  [...new Set(rules.flatMap((rule) => requiredPsuHeaders(rule.request?.headers)))].sort();

/** An account authorisation rule whose body makes `accountRequest.transactionFrom` mandatory. */
export function requiresTransactionRange(rule: InstitutionConstraint): boolean {
  const accountRequest = rule.request?.body?.properties?.accountRequest;
  return mandatory(accountRequest, 'transactionFrom');
}

/**
 * What each institution requires (PSU headers, a transaction range), from its data and payment
 * constraints, read by country in calls of {@link IDS_PER_CALL} ids. An institution whose calls failed
 * is left out of the answer (`unread` is told), so the refresh keeps what it knew; one read and silent
 * requires nothing.
 */
export async function constraintsOf(
  upstream: UpstreamClient,
  records: readonly InstitutionRecord[],
  unread: (error: unknown, institutionIds: string[]) => void,
): Promise<Map<string, InstitutionConstraints>> {
  const byCountry = new Map<string, string[]>();
  for (const record of records) {
    const country = record.countries[0];
    if (!country) continue;
    byCountry.set(country, [...(byCountry.get(country) ?? []), record.id]);
  }
  const needs = new Map<string, InstitutionConstraints>();
  for (const [country, ids] of byCountry) {
    for (let i = 0; i < ids.length; i += IDS_PER_CALL) {
      const chunk = ids.slice(i, i + IDS_PER_CALL);
      try {
        const query = { institutionIds: chunk, institutionCountryCode: country };
        const [data, payments] = await Promise.all([
          upstream.institutions.getConstraints('data', query),
          // The single payment's: what a payment authorisation of ours asks for (`pay`).
          upstream.institutions.getConstraints('payments', { ...query, paymentType: 'DOMESTIC_PAYMENT' }),
        ]);
        for (const id of chunk) {
          const of = (rules: InstitutionConstraint[]) => rules.filter((rule) => rule.institutionId === id);
          const dataRules = of(data.data ?? []);
          needs.set(id, {
            psuHeaders: { connect: union(dataRules), pay: union(of(payments.data ?? [])) },
            transactionRange: dataRules.some(requiresTransactionRange),
          });
        }
      } catch (error) {
        unread(error, chunk);
      }
    }
  }
  return needs;
}

/** Each PSU header by the upstream client's name for it. */
const CLIENT_FIELD: Readonly<Record<string, keyof PsuHeaders>> = {
  'psu-id': 'id',
  'psu-corporate-id': 'corporateId',
  'psu-ip-address': 'ipAddress',
};

/**
 * A 400 naming every PSU header the institution requires for `purpose` that `psu` lacks: refused here,
 * before the bank is asked, as the bank would refuse it.
 */
export function checkPsuHeaders(
  institution: { id: string; psuHeaders: PsuHeaderNeeds },
  purpose: keyof PsuHeaderNeeds,
  psu: PsuHeaders,
): void {
  const missing = institution.psuHeaders[purpose].filter((header) => {
    const field = CLIENT_FIELD[header];
    return field !== undefined && !psu[field];
  });
  if (missing.length > 0) {
    throw invalidRequest(
      missing.map((header) => ({
        field: header,
        issue: `header is required by institution ${institution.id}`,
      })),
    );
  }
}
