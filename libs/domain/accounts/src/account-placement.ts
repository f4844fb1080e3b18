/**
 * Where the accounts a consent lists belong among the accounts the user already has at the same
 * institution (same merchant, same user). One row per bank account, whichever consent lists it: a user
 * who connects a bank again keeps each account's id, transactions and sync history.
 *
 * A listed account is the user's existing account with the same upstream account id, else the one with
 * the same identification (sort code and account number, IBAN, or a card's full number). An existing
 * account moves to the listing consent unless a consent authorised more recently still holds it: the
 * accounts belong to the consent the user approved last. A listed account that matches nothing is new.
 */

/** An account the user already has at the institution, with the consent that holds it now. */
export interface HeldAccount {
  id: string;
  consentId: string;
  upstreamAccountId: string;
  accountIdentifications: unknown;
  consentStatus: string;
  consentAuthorizedAt: Date | null;
}

/** A listed account (the upstream's record): its id and identifications are what placement reads. */
export interface ListedAccount {
  id: string;
  accountIdentifications?: unknown;
}

export type Placement =
  /** Already this consent's account under this id. */
  | { action: 'update'; accountId: string }
  /** An account the user has (under another consent, or under another id): it comes to this consent. */
  | { action: 'move'; accountId: string; matchedBy: 'upstreamAccountId' | 'identification' }
  /** A consent authorised more recently holds it: that consent's account stands, no row is added. */
  | { action: 'keep'; accountId: string; heldBy: string }
  /** No account of the user matches: a new one. */
  | { action: 'create' }
  /** The listing named this upstream id before: its first entry is the account. */
  | { action: 'repeat' };

const normalised = (value: string) => value.replace(/[\s-]/g, '').toUpperCase();

/**
 * The keys an account is known by at any bank: sort code with account number, IBAN (a UK IBAN also
 * names the sort code and account number), and a card's full number. A masked number identifies nothing.
 */
export function identityKeys(identifications: unknown): string[] {
  if (!Array.isArray(identifications)) return [];
  const byType = new Map<string, string>();
  for (const item of identifications as { type?: unknown; identification?: unknown }[]) {
    if (typeof item?.type === 'string' && typeof item.identification === 'string') {
      byType.set(item.type.toUpperCase(), normalised(item.identification));
    }
  }
  const keys = new Set<string>();
  const sortCode = byType.get('SORT_CODE');
  const accountNumber = byType.get('ACCOUNT_NUMBER');
  if (sortCode && accountNumber && /^\d{6}$/.test(sortCode) && /^\d{6,10}$/.test(accountNumber)) {
    keys.add(`SCAN:${sortCode}:${accountNumber}`);
  }
  const iban = byType.get('IBAN');
  if (iban && /^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/.test(iban)) {
    keys.add(`IBAN:${iban}`);
    // GBkk BBBB SSSSSS AAAAAAAA: the sort code and account number are inside.
    if (iban.startsWith('GB') && iban.length === 22) keys.add(`SCAN:${iban.slice(8, 14)}:${iban.slice(14)}`);
  }
  const pan = byType.get('PAN');
  if (pan && /^\d{12,19}$/.test(pan)) keys.add(`PAN:${pan}`);
  return [...keys];
}

/**
 * Each listed account's placement, in listing order. `approvedAt` is this consent's authorisation (the
 * approval being stored, or the stored one): an account held by another consent moves here unless that
 * consent is authorised and was authorised at or after it. Each existing account is placed once; an
 * exact match (this consent, this upstream id) wins over any other.
 */
export function placeAccounts(
  consentId: string,
  approvedAt: Date | null,
  held: readonly HeldAccount[],
  listed: readonly ListedAccount[],
): Placement[] {
  // Oldest first (ids are uuid v7): of two rows a past defect duplicated, the one known longest stays.
  const candidates = [...held].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const placed = new Set<string>();
  const repeated = listed.map((a, i) => listed.findIndex((b) => b.id === a.id) < i);
  const placements: (Placement | undefined)[] = listed.map((a, i) => {
    if (repeated[i]) return { action: 'repeat' };
    const own = candidates.find((h) => h.consentId === consentId && h.upstreamAccountId === a.id);
    if (!own) return undefined;
    placed.add(own.id);
    return { action: 'update', accountId: own.id };
  });
  const heldElsewhereLater = (h: HeldAccount) =>
    h.consentId !== consentId &&
    h.consentStatus === 'AUTHORIZED' &&
    h.consentAuthorizedAt !== null &&
    (approvedAt === null || h.consentAuthorizedAt.getTime() >= approvedAt.getTime());
  const place = (h: HeldAccount, matchedBy: 'upstreamAccountId' | 'identification'): Placement => {
    placed.add(h.id);
    return heldElsewhereLater(h)
      ? { action: 'keep', accountId: h.id, heldBy: h.consentId }
      : { action: 'move', accountId: h.id, matchedBy };
  };
  return listed.map((a, i) => {
    const done = placements[i];
    if (done) return done;
    const open = candidates.filter((h) => !placed.has(h.id));
    const sameId = open.find((h) => h.consentId !== consentId && h.upstreamAccountId === a.id);
    if (sameId) return place(sameId, 'upstreamAccountId');
    const keys = new Set(identityKeys(a.accountIdentifications));
    if (keys.size > 0) {
      const sameIdentity = open.find(
        (h) => h.consentId !== consentId && identityKeys(h.accountIdentifications).some((k) => keys.has(k)),
      );
      if (sameIdentity) return place(sameIdentity, 'identification');
    }
    return { action: 'create' };
  });
}
