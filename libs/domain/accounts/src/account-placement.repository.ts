import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { Prisma, PrismaService, ReadCache, retryingConflicts } from '#libs/database';
import type { Account as UpstreamAccount } from '#libs/upstream-client';
import { AccountBalanceRepository } from './account-balance.repository.js';
import { placeAccounts, type Placement } from './account-placement.js';
import { ACCOUNT_PLACEMENT_SQL } from './account-placement.statements.js';

/** The consent an account refresh belongs to, within its merchant (ids only; the token never comes here). */
export interface AccountOwner {
  userId: string;
  consentId: string;
  institutionId: string;
}

/** The owner with its merchant, as the placement writes it. */
type PlacedOwner = AccountOwner & { merchantId: MerchantId };

const json = (v: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull =>
  v === undefined || v === null ? Prisma.DbNull : v;

/** Where a placement is written in the placing transaction: existing accounts by id, then new ones. */
const rank = (p: Placement) => ('accountId' in p ? `0:${p.accountId}` : '1:');
const byRank = (x: Placement, y: Placement) => {
  const [a, b] = [rank(x), rank(y)];
  return a < b ? -1 : a > b ? 1 : 0;
};

/**
 * The accounts as the bank lists them: a consent's accounts placed under it (an account the user already
 * has moves, with its history), each with its balances (AccountBalanceRepository's) in the same transaction.
 */
@Injectable()
export class AccountPlacementRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly cache: ReadCache,
    private readonly balances: AccountBalanceRepository,
  ) {}

  /**
   * Stores a consent's accounts as the upstream lists them and replaces each one's balances, all in one
   * transaction, so a reader never sees an account without its balances or half of a refresh. Balances
   * of a type the bank no longer reports are removed: the table holds the latest balance of each type.
   *
   * A listed account the user already has at this institution (under an earlier consent, or under
   * another upstream id) is that account, moved to this consent with its id, transactions and sync
   * history, and due for a sync (see placeAccounts); only an account that matches none is created. The
   * user's accounts at the institution are placed under one lock, so two consents of the same bank
   * authorised at once cannot both add a row for one account. `approvedAt`: the authorisation being
   * stored (else the consent's stored one).
   */
  async upsertFromUpstream(
    merchantId: MerchantId,
    owner: AccountOwner,
    accounts: readonly UpstreamAccount[],
    options: { approvedAt?: Date; now?: Date } = {},
  ): Promise<void> {
    const now = options.now ?? new Date();
    // A deadlock with another writer of these rows (a sync ending, a revocation) may pick this one: the
    // placement is whole or not at all, so it is simply made again.
    await retryingConflicts(() =>
      this.prisma.$transaction((tx) => this.place(tx, { ...owner, merchantId }, accounts, options, now)),
    );
    this.cache.invalidate(merchantId);
  }

  /**
   * The same placement inside the caller's transaction, so the move commits with whatever else that
   * transaction writes (the consent's authorisation: a consent that is not authorised takes no accounts).
   * The caller invalidates the read cache after it commits, and retries on a conflict.
   */
  placeWithin(
    merchantId: MerchantId,
    tx: Prisma.TransactionClient,
    owner: AccountOwner,
    accounts: readonly UpstreamAccount[],
    options: { approvedAt?: Date; now?: Date } = {},
  ): Promise<void> {
    return this.place(tx, { ...owner, merchantId }, accounts, options, options.now ?? new Date());
  }

  private async place(
    tx: Prisma.TransactionClient,
    owner: PlacedOwner,
    accounts: readonly UpstreamAccount[],
    options: { approvedAt?: Date },
    now: Date,
  ): Promise<void> {
    // Two placements of the same user's accounts at one bank (two consents authorised at once) take
    // turns: the rows either would insert are not there yet to be locked.
    const key = `accounts:${owner.merchantId}:${owner.userId}:${owner.institutionId}`;
    await tx.$executeRaw(ACCOUNT_PLACEMENT_SQL.lockPlacement(key));
    const placements = await this.placements(tx, owner, accounts, options);
    // Existing rows in id order, each one's balances before the row itself: the order in which a sync's
    // last transaction (balances, then the account) and ConsentStateRepository (a consent's accounts,
    // by id) lock them, so none of them waits for another in a circle. New rows last.
    const order = accounts
      .map((upstream, i) => ({ upstream, placement: placements[i] }))
      .filter(({ placement }) => placement.action !== 'keep' && placement.action !== 'repeat')
      .sort((x, y) => byRank(x.placement, y.placement));
    for (const { upstream, placement } of order) await this.write(tx, owner, upstream, placement, now);
  }

  /** Where each listed account goes (see placeAccounts), among the user's accounts at the institution. */
  private async placements(
    tx: Prisma.TransactionClient,
    owner: PlacedOwner,
    accounts: readonly UpstreamAccount[],
    options: { approvedAt?: Date },
  ): Promise<Placement[]> {
    const held = await tx.account.findMany({
      where: { merchantId: owner.merchantId, userId: owner.userId, institutionId: owner.institutionId },
      select: {
        id: true,
        consentId: true,
        upstreamAccountId: true,
        accountIdentifications: true,
        consent: { select: { status: true, authorizedAt: true } },
      },
    });
    const approvedAt =
      options.approvedAt ??
      (
        await tx.consent.findFirst({
          where: { id: owner.consentId, merchantId: owner.merchantId },
          select: { authorizedAt: true },
        })
      )?.authorizedAt ??
      null;
    return placeAccounts(
      owner.consentId,
      approvedAt,
      held.map((h) => ({
        id: h.id,
        consentId: h.consentId,
        upstreamAccountId: h.upstreamAccountId,
        accountIdentifications: h.accountIdentifications,
        consentStatus: h.consent.status,
        consentAuthorizedAt: h.consent.authorizedAt,
      })),
      accounts,
    );
  }

  /**
   * A listed account written as placed: a new row then its balances, or its balances then its row (moved
   * to this consent first when it moves).
   */
  private async write(
    tx: Prisma.TransactionClient,
    owner: PlacedOwner,
    a: UpstreamAccount,
    placement: Placement,
    now: Date,
  ): Promise<void> {
    const fields = {
      type: a.accountType ?? a.type ?? null,
      usageType: a.usageType ?? null,
      currency: a.currency ?? null,
      nickname: a.nickname ?? null,
      description: a.description ?? null,
      details: a.details ?? null,
      accountNames: json(a.accountNames),
      accountIdentifications: json(a.accountIdentifications),
      raw: a as Prisma.InputJsonValue,
    };
    if (placement.action === 'create') {
      const { id } = await tx.account.create({
        data: { ...owner, upstreamAccountId: a.id, ...fields, nextSyncAt: now },
        select: { id: true },
      });
      await this.balances.storeListed(owner.merchantId, tx, id, a);
    } else if (placement.action === 'move' || placement.action === 'update') {
      await this.balances.storeListed(owner.merchantId, tx, placement.accountId, a);
      if (placement.action === 'move') await this.move(tx, owner, placement.accountId, a.id, now);
      await tx.account.updateMany({
        where: { id: placement.accountId, merchantId: owner.merchantId },
        data: fields,
      });
    }
  }

  /**
   * An existing account comes to `owner`'s consent under the id this consent lists it by: open again and
   * due for a sync now (one running keeps running and ends as it would), with the stopped consent's error
   * cleared. Its transactions and sync runs hang off the account, so they come with it. The one write of
   * the sync state outside AccountSyncStateRepository: the move and the fresh start are one statement.
   */
  private async move(
    tx: Prisma.TransactionClient,
    owner: PlacedOwner,
    accountId: string,
    upstreamAccountId: string,
    now: Date,
  ): Promise<void> {
    await tx.$executeRaw(ACCOUNT_PLACEMENT_SQL.move(owner, accountId, upstreamAccountId, now));
  }
}
