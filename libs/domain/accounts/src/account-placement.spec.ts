import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '#libs/testing';
import { type HeldAccount, identityKeys, placeAccounts } from './account-placement.js';

const scan = (sortCode: string, accountNumber: string) => [
  { type: 'SORT_CODE', identification: sortCode },
  { type: 'ACCOUNT_NUMBER', identification: accountNumber },
];
const T0 = new Date('2026-11-01T00:00:00Z');
const T1 = new Date('2026-11-10T00:00:00Z');
const T2 = new Date('2026-11-20T00:00:00Z');

const held = (over: Partial<HeldAccount> & Pick<HeldAccount, 'id'>): HeldAccount => ({
  consentId: 'old',
  upstreamAccountId: `up-${over.id}`,
  accountIdentifications: [],
  consentStatus: 'REVOKED',
  consentAuthorizedAt: T0,
  ...over,
});

describe('identityKeys', () => {
  it('knows an account by sort code and number, IBAN (a UK one names both) or a full card number', () => {
    expect(identityKeys(scan('04-00-04', '12345678'))).toEqual(['SCAN:040004:12345678']);
    expect(identityKeys([{ type: 'IBAN', identification: 'GB33 BUKB 2020 1555 5555 55' }])).toEqual([
      'IBAN:GB33BUKB20201555555555',
      'SCAN:202015:55555555',
    ]);
    expect(identityKeys([{ type: 'PAN', identification: '5123456789012346' }])).toEqual([
      'PAN:5123456789012346',
    ]);
  });

  it('knows nothing by a masked card, a sort code alone, or a malformed list', () => {
    expect(identityKeys([{ type: 'PAN', identification: '************2346' }])).toEqual([]);
    expect(identityKeys([{ type: 'SORT_CODE', identification: '040004' }])).toEqual([]);
    expect(identityKeys(null)).toEqual([]);
    expect(identityKeys({ type: 'IBAN' })).toEqual([]);
    expect(identityKeys([null, 7, { type: 'IBAN', identification: 3 }])).toEqual([]);
  });
});

describe('placeAccounts', () => {
  it('moves the user’s account of an ended consent by its upstream id, else by its identification', () => {
    const byId = held({ id: 'a1', upstreamAccountId: 'u1' });
    const byIdentity = held({
      id: 'a2',
      upstreamAccountId: 'old-u2',
      accountIdentifications: scan('040004', '11112222'),
    });
    const placements = placeAccounts(
      'new',
      T1,
      [byId, byIdentity],
      [
        { id: 'u1' },
        { id: 'u2', accountIdentifications: scan('04-00-04', '11112222') },
        { id: 'u3', accountIdentifications: scan('040004', '99990000') },
      ],
    );
    expect(placements).toEqual([
      { action: 'move', accountId: 'a1', matchedBy: 'upstreamAccountId' },
      { action: 'move', accountId: 'a2', matchedBy: 'identification' },
      { action: 'create' },
    ]);
  });

  it('updates this consent’s own account in place, and places an existing account once', () => {
    const own = held({ id: 'a1', consentId: 'new', upstreamAccountId: 'u1' });
    const twin = held({ id: 'a0', upstreamAccountId: 'u1' });
    // A listing naming an id twice: the first entry is the account (the rows' key is consent and id).
    expect(placeAccounts('new', T1, [twin, own], [{ id: 'u1' }, { id: 'u1' }, { id: 'u2' }])).toEqual([
      { action: 'update', accountId: 'a1' },
      { action: 'repeat' },
      { action: 'create' },
    ]);
  });

  it('leaves an account with a consent authorised after this one, and takes it from one authorised before', () => {
    const later = held({
      id: 'a1',
      upstreamAccountId: 'u1',
      consentStatus: 'AUTHORIZED',
      consentAuthorizedAt: T2,
    });
    const earlier = held({
      id: 'a2',
      upstreamAccountId: 'u2',
      consentStatus: 'AUTHORIZED',
      consentAuthorizedAt: T0,
    });
    expect(placeAccounts('new', T1, [later, earlier], [{ id: 'u1' }, { id: 'u2' }])).toEqual([
      { action: 'keep', accountId: 'a1', heldBy: 'old' },
      { action: 'move', accountId: 'a2', matchedBy: 'upstreamAccountId' },
    ]);
    // Without an approval time of its own, an authorised consent keeps what it holds.
    expect(placeAccounts('new', null, [earlier], [{ id: 'u2' }])[0].action).toBe('keep');
  });

  it('prefers the account known longest when a past defect left two', () => {
    const newer = held({ id: '0192-b', upstreamAccountId: 'u1' });
    const older = held({ id: '0192-a', upstreamAccountId: 'u1' });
    expect(placeAccounts('new', T1, [newer, older], [{ id: 'u1' }])).toEqual([
      { action: 'move', accountId: '0192-a', matchedBy: 'upstreamAccountId' },
    ]);
  });

  it('never places one existing account twice, and keeps the listing’s order and length', async () => {
    const upstreamIds = fc.constantFrom('u1', 'u2', 'u3', 'u4');
    const identification = fc.option(fc.constantFrom('11111111', '22222222', '33333333'), { nil: undefined });
    const heldAccount = fc.record({
      consentId: fc.constantFrom('new', 'old', 'other'),
      upstreamAccountId: upstreamIds,
      number: identification,
      consentStatus: fc.constantFrom('AUTHORIZED', 'REVOKED', 'EXPIRED'),
      consentAuthorizedAt: fc.constantFrom(T0, T1, T2, null),
    });
    const listedAccount = fc.record({ id: upstreamIds, number: identification });
    await assertProperty(
      fc.property(
        fc.array(heldAccount, { maxLength: 8 }),
        fc.array(listedAccount, { maxLength: 6 }),
        (hs, ls) => {
          const holdings = hs.map((h, i) =>
            held({ ...h, id: `a${i}`, accountIdentifications: h.number ? scan('040004', h.number) : [] }),
          );
          const listed = ls.map((l) => ({
            id: l.id,
            accountIdentifications: l.number ? scan('040004', l.number) : [],
          }));
          const placements = placeAccounts('new', T1, holdings, listed);
          expect(placements).toHaveLength(listed.length);
          const placed = placements.flatMap((p) => ('accountId' in p ? [p.accountId] : []));
          expect(new Set(placed).size).toBe(placed.length);
          // One row per upstream id under this consent (the unique key): each id written once.
          const written = listed.filter((_, i) => !['keep', 'repeat'].includes(placements[i].action));
          expect(new Set(written.map((l) => l.id)).size).toBe(written.length);
          for (const [i, p] of placements.entries()) {
            if (p.action === 'update') {
              const h = holdings.find((x) => x.id === p.accountId)!;
              expect([h.consentId, h.upstreamAccountId]).toEqual(['new', listed[i].id]);
            }
            if (p.action === 'move' || p.action === 'keep') {
              const h = holdings.find((x) => x.id === p.accountId)!;
              expect(h.consentId).not.toBe('new');
              const laterHolder =
                h.consentStatus === 'AUTHORIZED' &&
                h.consentAuthorizedAt !== null &&
                h.consentAuthorizedAt >= T1;
              expect(p.action).toBe(laterHolder ? 'keep' : 'move');
            }
          }
        },
      ),
      200,
    );
  });
});
