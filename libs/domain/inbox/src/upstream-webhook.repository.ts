import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { SecretBox } from '#libs/crypto';
import { PrismaService, sqlStatement } from '#libs/database';

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

/** The longest a registration may hold its application's lock: a few upstream calls, each bounded. */
const REGISTRATION_LOCK_MS = 120_000;

export const UPSTREAM_WEBHOOK_SQL = {
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
  async store(input: NewUpstreamWebhook, now = new Date()): Promise<UpstreamWebhookView> {
    const sealed = this.box.seal(input.secret, secretContext(input.applicationId));
    return this.prisma.$transaction(async (tx) => {
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
    });
  }

  /**
   * Runs `work` holding the application's registration lock, so that of any number of processes
   * registering for it at once, each sees what the previous one registered (one webhook per URL). The
   * lock lives in a transaction of its own: `work` writes through this repository as usual.
   */
  async withRegistrationLock<T>(applicationId: string, work: () => Promise<T>): Promise<T> {
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(UPSTREAM_WEBHOOK_SQL.registrationLock.text, applicationId);
        return work();
      },
      { maxWait: REGISTRATION_LOCK_MS, timeout: REGISTRATION_LOCK_MS },
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
    return this.prisma.upstreamWebhook.findMany({
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
