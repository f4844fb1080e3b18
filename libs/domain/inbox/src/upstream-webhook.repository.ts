import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { SecretBox } from '#libs/crypto';
import { type Prisma, PrismaService, rawQueryState, sqlStatement } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';

/** A registration of our receiver with the upstream, as the operator sees it (never its secret). */
export interface UpstreamWebhookView {
  id: string;
  applicationId: string;
  merchantId: string | null;
  /** Its merchant as it is now, so a list names it without reading every merchant; null for the root. */
  merchant: { name: string } | null;
  upstreamWebhookId: string | null;
  categories: string[];
  callbackUrl: string;
  status: string | null;
  retiredAt: Date | null;
  createdAt: Date;
}

export interface NewUpstreamWebhook {
  applicationId: string;
  merchantId: string | null;
  upstreamWebhookId: string | null;
  categories: string[];
  callbackUrl: string;
  /** The `webhookSecret` the upstream showed once: sealed here, before anything else happens to it. */
  secret: string;
  status: string | null;
}

/**
 * How long a registration waits for its application's lock, held by another one under way, before it
 * gives up (503 SERVICE_UNAVAILABLE, Retry-After): the lock transaction's `lock_timeout`. Under the pool's
 * statement bound (STATEMENT_TIMEOUT_MS), which would otherwise end the wait first; behind a transaction
 * pooler whose server bounds statements tighter, that bound ends it, and the caller is answered the same.
 */
export const REGISTRATION_LOCK_WAIT_MS = 20_000;
/** What a registration that gave up waiting asks its caller to wait: the holder is a few calls from done. */
export const REGISTRATION_RETRY_AFTER_SECONDS = 10;
/**
 * The longest a registration may hold its application's lock (its transaction, the wait included): a
 * few upstream calls, each bounded; past it the transaction is rolled back, and its store with it.
 */
const REGISTRATION_HOLD_MS = 120_000;
/** Postgres ended the wait: lock_timeout (55P03), or statement_timeout (57014) where that was shorter. */
const LOCK_WAIT_ENDED = new Set(['55P03', '57014']);

export const UPSTREAM_WEBHOOK_SQL = {
  /** Bounds the transaction's waits for a lock (the registration lock's first), until it ends. */
  lockWait: sqlStatement('upstream-webhooks.lock-wait', `SELECT set_config('lock_timeout', $1::text, true)`),
  /** Orders registrations of one application across processes; released with the transaction. */
  registrationLock: sqlStatement(
    'upstream-webhooks.registration-lock',
    `SELECT pg_advisory_xact_lock(hashtextextended('upstream-webhook:' || $1::text, 0))`,
  ),
  applicationsHoldingConsents: sqlStatement(
    undefined,
    `SELECT DISTINCT coalesce(m.sub_application_id, $1::text) AS application_id
      FROM merchants m
      -- Through users: consents are indexed by user, users by merchant.
      WHERE EXISTS (SELECT 1 FROM users u JOIN consents c ON c.user_id = u.id WHERE u.merchant_id = m.id)
      ORDER BY 1`,
    { application_id: 'string' },
  ),
};

const VIEW = {
  id: true,
  applicationId: true,
  merchantId: true,
  merchant: { select: { name: true } },
  upstreamWebhookId: true,
  categories: true,
  callbackUrl: true,
  status: true,
  retiredAt: true,
  createdAt: true,
} as const;

/** A registration's reads and writes under its application's lock, on the lock's own connection. */
export interface LockedRegistrations {
  /** The application's current registrations (normally one). */
  listActive(): Promise<UpstreamWebhookView[]>;
  /** As `store`, in the lock's transaction: committed as the lock is released, or rolled back with it. */
  store(input: NewUpstreamWebhook): Promise<UpstreamWebhookView>;
}

/** Secrets are bound to their application, so a ciphertext copied to another row does not open. */
const secretContext = (applicationId: string) => `upstream-webhook:${applicationId}`;

/**
 * The one owner of `upstream_webhooks`: our receiver's registrations with the upstream and their signing
 * secrets, sealed at rest. A new registration (or a secret reset) for an application retires the
 * previous ones; a retired secret still verifies for the grace period, so events signed with it in
 * flight are not refused.
 */
@Injectable()
export class UpstreamWebhookRepository {
  private readonly box: SecretBox;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SecretBox(config.crypto.encryptionKeys);
  }

  /**
   * Stores a registration and retires the application's earlier ones, in one transaction. A secret reset
   * stores the same upstream webhook again: the upstream id moves to the new row (it names one webhook),
   * the retired row keeps only its secret, for the grace period.
   */
  store(input: NewUpstreamWebhook, now = new Date()): Promise<UpstreamWebhookView> {
    return this.prisma.$transaction((tx) => this.storeIn(tx, input, now));
  }

  private async storeIn(
    tx: Prisma.TransactionClient,
    input: NewUpstreamWebhook,
    now: Date,
  ): Promise<UpstreamWebhookView> {
    const sealed = this.box.seal(input.secret, secretContext(input.applicationId));
    await tx.upstreamWebhook.updateMany({
      where: { applicationId: input.applicationId, retiredAt: null },
      data: { retiredAt: now },
    });
    if (input.upstreamWebhookId) {
      await tx.upstreamWebhook.updateMany({
        where: { upstreamWebhookId: input.upstreamWebhookId },
        data: { upstreamWebhookId: null },
      });
    }
    return tx.upstreamWebhook.create({
      data: {
        applicationId: input.applicationId,
        merchantId: input.merchantId,
        upstreamWebhookId: input.upstreamWebhookId,
        categories: input.categories,
        callbackUrl: input.callbackUrl,
        secretCiphertext: sealed.ciphertext,
        secretKeyId: sealed.keyId,
        status: input.status,
      },
      select: VIEW,
    });
  }

  /**
   * Runs `work` holding the application's registration lock, so that of any number of processes
   * registering for it at once, each sees what the previous one registered (one webhook per URL). The
   * lock lives in a transaction, and `work` reads and writes on that transaction's connection (`locked`)
   * and no other: a registration holds one pooled connection, waiting or working, so however many wait
   * at once the one holding the lock never waits on the pool for a second one its waiters hold. (Its
   * upstream calls take none: the call log keeps only a consent's, a run's or a payment's.)
   *
   * A caller that waits REGISTRATION_LOCK_WAIT_MS gets 503 SERVICE_UNAVAILABLE with Retry-After. What
   * `work` stored is committed with the lock's release: a registration cut short after registering
   * upstream (the process stopped, the hold outlasted) leaves a webhook upstream and no row here, which the
   * next registration for the URL adopts.
   */
  async withRegistrationLock<T>(
    applicationId: string,
    work: (locked: LockedRegistrations) => Promise<T>,
  ): Promise<T> {
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(UPSTREAM_WEBHOOK_SQL.lockWait.text, String(REGISTRATION_LOCK_WAIT_MS));
        const waitFrom = Date.now();
        await tx
          .$executeRawUnsafe(UPSTREAM_WEBHOOK_SQL.registrationLock.text, applicationId)
          .catch((error: unknown) => {
            const state = rawQueryState(error);
            if (state === undefined || !LOCK_WAIT_ENDED.has(state)) throw error;
            throw new DomainError(
              ErrorCode.SERVICE_UNAVAILABLE,
              `Another registration for application ${applicationId} is still under way (waited ` +
                `${Math.round((Date.now() - waitFrom) / 1000)} s for it); retry after the Retry-After delay.`,
              { retryAfterSeconds: REGISTRATION_RETRY_AFTER_SECONDS },
            );
          });
        return work({
          listActive: () => this.listActiveOn(tx, applicationId),
          store: (input) => this.storeIn(tx, input, new Date()),
        });
      },
      { timeout: REGISTRATION_HOLD_MS },
    );
  }

  /** A registration removed upstream (or replaced outside a `store`): its secret enters the grace period. */
  async retire(id: string, now = new Date()): Promise<void> {
    await this.prisma.upstreamWebhook.updateMany({
      where: { id, retiredAt: null },
      data: { retiredAt: now },
    });
  }

  /** A current (not retired) registration. */
  findCurrent(id: string): Promise<UpstreamWebhookView | null> {
    return this.prisma.upstreamWebhook.findFirst({ where: { id, retiredAt: null }, select: VIEW });
  }

  list(): Promise<UpstreamWebhookView[]> {
    return this.prisma.upstreamWebhook.findMany({ select: VIEW, orderBy: { createdAt: 'desc' } });
  }

  /**
   * Applications some merchant holds consents under (a merchant without a sub-application is under the
   * root application, `rootApplicationId`): the upstream's webhooks about those consents must reach us.
   */
  async applicationsHoldingConsents(rootApplicationId: string): Promise<string[]> {
    const rows = await this.prisma.$queryRawUnsafe<{ application_id: string }[]>(
      UPSTREAM_WEBHOOK_SQL.applicationsHoldingConsents.text,
      rootApplicationId,
    );
    return rows.map((r) => r.application_id);
  }

  /** The current registrations of one application (normally one). */
  listActive(applicationId: string): Promise<UpstreamWebhookView[]> {
    return this.listActiveOn(this.prisma, applicationId);
  }

  private listActiveOn(db: Prisma.TransactionClient, applicationId: string): Promise<UpstreamWebhookView[]> {
    return db.upstreamWebhook.findMany({
      where: { applicationId, retiredAt: null },
      select: VIEW,
      orderBy: { createdAt: 'desc' },
    });
  }

  /**
   * Every secret that may sign an event now (current ones, and retired ones still in their grace period),
   * by the application they were registered for, newest first: an event is verified only with the
   * secrets of the application it names.
   */
  async secretsByApplication(retiredAfter: Date): Promise<Map<string, string[]>> {
    const rows = await this.prisma.upstreamWebhook.findMany({
      where: { OR: [{ retiredAt: null }, { retiredAt: { gt: retiredAfter } }] },
      select: { applicationId: true, secretCiphertext: true, secretKeyId: true },
      orderBy: { createdAt: 'desc' },
    });
    const byApplication = new Map<string, string[]>();
    for (const row of rows) {
      const secret = this.box.open(
        { ciphertext: row.secretCiphertext, keyId: row.secretKeyId },
        secretContext(row.applicationId),
      );
      const secrets = byApplication.get(row.applicationId) ?? [];
      if (!secrets.includes(secret)) secrets.push(secret);
      byApplication.set(row.applicationId, secrets);
    }
    return byApplication;
  }
}
