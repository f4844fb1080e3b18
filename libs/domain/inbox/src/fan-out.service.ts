import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { tenantOfRecord } from '#libs/context';
import { type Prisma, PrismaService } from '#libs/database';
import {
  CONSENT_GONE_SIGNALS,
  type ConsentGone,
  ConsentRepository,
  ConsentStateRepository,
} from '#libs/domain/consents';
import { NOT_PAID_STATUSES, PaymentStateRepository, PaymentStatus } from '#libs/domain/payments';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type FanOutOutcome,
  InboundEventRepository,
  type LockedInboundEvent,
} from './inbound-event.repository.js';

type Tx = Prisma.TransactionClient;

interface Applied {
  outcome: FanOutOutcome;
  merchantId: string | null;
}

/** Upstream payment categories → the final status they report. */
const PAYMENT_FINAL: Record<string, string> = {
  'payment.state.success': PaymentStatus.Completed,
  'payment.state.failed': PaymentStatus.Failed,
};

const stringAt = (payload: unknown, key: string): string | null => {
  const data = (payload as { data?: Record<string, unknown> } | null)?.data;
  const value = data?.[key];
  return typeof value === 'string' && value.length > 0 ? value : null;
};

const UNMATCHED: Applied = { outcome: 'unmatched', merchantId: null };
const IGNORED: Applied = { outcome: 'ignored', merchantId: null };

/**
 * Applies one inbox event to our state, in one transaction with marking it processed, so it takes effect
 * exactly once however often its job runs: the row is locked and must still be RECEIVED. An event changes
 * only consents and payments of the application it was verified for (its stored `applicationId`). Consent
 * and payment changes go through their state owners, which record the merchant events in the same
 * transaction. A type we do not act on is kept, marked ignored.
 */
@Injectable()
export class FanOutService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly inbox: InboundEventRepository,
    private readonly consentReads: ConsentRepository,
    private readonly consents: ConsentStateRepository,
    private readonly payments: PaymentStateRepository,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  async process(inboundEventId: string): Promise<{ outcome: FanOutOutcome | 'already-processed' }> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const event = await this.inbox.lockUnprocessed(tx, inboundEventId);
        if (!event) return { outcome: 'already-processed' as const };
        const applied = await this.apply(tx, event);
        await this.inbox.markProcessed(tx, event.id, applied.outcome, applied.merchantId);
        this.logger.info({ inboundEventId, type: event.type, ...applied }, 'upstream event fanned out');
        return { outcome: applied.outcome };
      });
    } catch (error) {
      await this.inbox
        .recordFailure(inboundEventId, error instanceof Error ? error.message : String(error))
        .catch(() => undefined);
      throw error;
    }
  }

  /**
   * What each upstream event type does, one row per type: a consent the bank says is gone, or a payment's
   * final status. A type not in it (consent.state.authorized and anything newer) is ignored: our own
   * callback and polls already act on those.
   */
  private readonly byType: ReadonlyMap<string, (tx: Tx, event: LockedInboundEvent) => Promise<Applied>> =
    new Map([
      ...Object.entries(CONSENT_GONE_SIGNALS.webhookType).map(
        ([type, gone]) =>
          [type, (tx: Tx, event: LockedInboundEvent) => this.consentGone(tx, event, gone)] as const,
      ),
      ...Object.entries(PAYMENT_FINAL).map(
        ([type, status]) =>
          [type, (tx: Tx, event: LockedInboundEvent) => this.paymentFinal(tx, event, status)] as const,
      ),
    ]);

  private apply(tx: Tx, event: LockedInboundEvent): Promise<Applied> {
    const handler = this.byType.get(event.type ?? '');
    return handler ? handler(tx, event) : Promise.resolve(IGNORED);
  }

  private async consentGone(
    tx: Tx,
    event: LockedInboundEvent,
    gone: Required<ConsentGone>,
  ): Promise<Applied> {
    // Stored before events were bound to the application that signed them: whose it is, nothing says.
    const { applicationId } = event;
    const upstreamConsentId = stringAt(event.payload, 'consentId');
    if (!upstreamConsentId || !applicationId) return UNMATCHED;
    const consents = await this.consentReads.findByUpstreamIdInApplication(
      tx,
      upstreamConsentId,
      this.subApplicationOf(applicationId),
    );
    let applied = false;
    for (const consent of consents) {
      const result = await this.consents.markGone(tenantOfRecord(consent), {
        consentId: consent.id,
        status: gone.status,
        code: gone.code,
        message: gone.message,
        now: new Date(),
        within: tx,
      });
      applied ||= result.applied;
    }
    if (consents.length === 0) return UNMATCHED;
    // Unchanged: the consent had moved on already (revoked by the merchant, expired, re-authorising).
    return { outcome: applied ? 'applied' : 'unchanged', merchantId: consents[0].merchantId };
  }

  private async paymentFinal(tx: Tx, event: LockedInboundEvent, finalStatus: string): Promise<Applied> {
    const { applicationId } = event;
    const upstreamPaymentId = stringAt(event.payload, 'paymentId');
    if (!upstreamPaymentId || !applicationId) return UNMATCHED;
    const data = (event.payload as { data?: Prisma.InputJsonValue }).data ?? null;
    // A failure says which (DECLINED, EXPIRED, …) in its status, as the status poll would read it.
    const stated = stringAt(event.payload, 'status');
    const status =
      finalStatus !== PaymentStatus.Completed && stated && NOT_PAID_STATUSES.includes(stated)
        ? stated
        : finalStatus;
    const { matched, merchantId } = await this.payments.applyFinalStatus(
      tx,
      { upstreamPaymentId, subApplicationId: this.subApplicationOf(applicationId) },
      status,
      data,
    );
    return matched > 0 ? { outcome: 'applied', merchantId } : UNMATCHED;
  }

  /** Merchants on the root application have no sub-application; every other application is one. */
  private subApplicationOf(applicationId: string): string | null {
    return applicationId === this.config.upstream.applicationId ? null : applicationId;
  }
}
