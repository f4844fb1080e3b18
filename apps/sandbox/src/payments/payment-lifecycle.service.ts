import { Inject, Injectable } from '@nestjs/common';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  fromMinor,
  SandboxClockService,
  SandboxError,
  SandboxEvents,
  toMinor,
  wireAmount,
} from '../core/index.js';
import { type PaymentRecord, type PaymentStatus, TERMINAL_STATUSES } from './payments.store.js';

/**
 * The payer's available balance at the sandbox bank, in whole units of any currency (5,000.00 GBP,
 * 5,000 JPY, 5,000.000 KWD). VRP funds
 * confirmation answers `false` above it, and a VRP submission above it fails at once (upstream spec §4.3: the
 * service checks funds itself before each submission).
 */
export const PAYER_AVAILABLE_BALANCE = 5000;

interface Outcome {
  status: PaymentStatus;
  reason?: string;
  description?: string;
}

/**
 * Where a PENDING payment goes on its first status read, decided by the amount's first two decimals so
 * merchants can produce every outcome on purpose: .99 fails, .98 is declined, .97 stays pending (until
 * the control API moves it), anything else completes. KWD's 12.995 fails like 12.99; a currency of no
 * decimals (JPY) always completes.
 */
export function outcomeFor(amountMinor: number, currency: string): Outcome | undefined {
  const hundredths = Math.floor((Math.abs(amountMinor) * 100) / toMinor(1, currency)) % 100;
  switch (hundredths) {
    case 99:
      return {
        status: 'FAILED',
        reason: 'INSUFFICIENT_FUNDS',
        description: 'Sandbox rule: amounts ending in .99 fail for insufficient funds',
      };
    case 98:
      return {
        status: 'DECLINED',
        reason: 'DECLINED_BY_INSTITUTION',
        description: 'Sandbox rule: amounts ending in .98 are declined by the bank',
      };
    case 97:
      return undefined;
    default:
      return { status: 'COMPLETED' };
  }
}

const ISO_STATUS: Record<PaymentStatus, { code: string; name: string }> = {
  PENDING: { code: 'PDNG', name: 'Pending' },
  COMPLETED: { code: 'ACSC', name: 'AcceptedSettlementCompleted' },
  FAILED: { code: 'RJCT', name: 'Rejected' },
  DECLINED: { code: 'RJCT', name: 'Rejected' },
  EXPIRED: { code: 'CANC', name: 'Cancelled' },
};

/** Status transitions of payments and the one payment.state.* event each terminal payment sends. */
@Injectable()
export class PaymentLifecycleService {
  constructor(
    private readonly clock: SandboxClockService,
    private readonly events: SandboxEvents,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  isTerminal(status: PaymentStatus): boolean {
    return TERMINAL_STATUSES.includes(status);
  }

  /** A new payment: PENDING ones announce themselves once with payment.state.pending. */
  created(payment: PaymentRecord): PaymentRecord {
    if (payment.status === 'PENDING') this.emit(payment, 'payment.state.pending');
    return payment;
  }

  /** A status read: a PENDING payment settles by the amount rule (see outcomeFor). */
  observe(payment: PaymentRecord): PaymentRecord {
    if (payment.status !== 'PENDING') return payment;
    const outcome = outcomeFor(payment.amountMinor, payment.currency);
    if (outcome) this.transition(payment, outcome.status, outcome.reason, outcome.description);
    return payment;
  }

  /** The control API's move to a terminal status; a payment already terminal stays as it is (409). */
  force(payment: PaymentRecord, status: PaymentStatus, reason?: string, description?: string) {
    if (this.isTerminal(payment.status)) {
      throw new SandboxError(409, `Payment ${payment.id} is already ${payment.status}`, [
        {
          type: 'CONFLICT',
          code: 'PAYMENT_ALREADY_TERMINAL',
          parameter: 'status',
          message: `Payment ${payment.id} is already ${payment.status}; terminal statuses do not change`,
        },
      ]);
    }
    return this.transition(payment, status, reason, description);
  }

  transition(payment: PaymentRecord, status: PaymentStatus, reason?: string, description?: string) {
    payment.status = status;
    payment.statusReason = reason;
    payment.statusReasonDescription = description;
    payment.statusUpdatedAt = this.clock.now().toISOString();
    if (this.isTerminal(status) && !payment.terminalEventAt) {
      payment.terminalEventAt = payment.statusUpdatedAt;
      this.emit(payment, status === 'COMPLETED' ? 'payment.state.success' : 'payment.state.failed');
    }
    return payment;
  }

  private emit(payment: PaymentRecord, type: string): void {
    try {
      this.events.emit({ applicationId: payment.applicationId, type, data: this.eventData(payment) });
    } catch (error) {
      // A failing listener (webhook delivery) must not fail the payment call that caused the event.
      this.logger.warn({ err: error, paymentId: payment.id, type }, 'sandbox payment event listener failed');
    }
  }

  /** The event payload (README: "Payment events"). */
  eventData(payment: PaymentRecord): Record<string, unknown> {
    return {
      paymentId: payment.id,
      paymentIdempotencyId: payment.paymentIdempotencyId,
      paymentType: payment.type,
      vrpType: payment.vrpType,
      status: payment.status,
      statusReason: payment.statusReason,
      isoStatus: ISO_STATUS[payment.status],
      amount: fromMinor(payment.amountMinor, payment.currency),
      currency: payment.currency,
      amountDetails: wireAmount(payment.amountMinor, payment.currency),
      reference: payment.reference,
      institutionId: payment.institutionId,
      consentId: payment.consentId,
      userUuid: payment.userUuid,
      applicationUserId: payment.applicationUserId,
      createdAt: payment.createdAt,
      statusUpdatedAt: payment.statusUpdatedAt,
    };
  }

  statusDetails(payment: PaymentRecord) {
    return {
      status: payment.status,
      statusReason: payment.statusReason,
      statusReasonDescription: payment.statusReasonDescription,
      statusUpdateDate: payment.statusUpdatedAt,
      isoStatus: ISO_STATUS[payment.status],
    };
  }

  /** PaymentResponse of the upstream's OpenAPI (single payments). */
  singleView(payment: PaymentRecord) {
    return {
      id: payment.id,
      institutionConsentId: payment.institutionConsentId,
      paymentIdempotencyId: payment.paymentIdempotencyId,
      status: payment.status,
      statusDetails: this.statusDetails(payment),
      payer: payment.payer,
      payeeDetails: payment.payee,
      reference: payment.reference,
      amount: fromMinor(payment.amountMinor, payment.currency),
      currency: payment.currency,
      amountDetails: wireAmount(payment.amountMinor, payment.currency),
      createdAt: payment.createdAt,
    };
  }

  /** VrpSubmissionResponse of the upstream's OpenAPI. */
  vrpView(payment: PaymentRecord) {
    return {
      id: payment.id,
      paymentIdempotencyId: payment.paymentIdempotencyId,
      institutionConsentId: payment.institutionConsentId,
      status: payment.status,
      statusDetails: this.statusDetails(payment),
      initiationDetails: payment.initiationDetails ?? {},
      submissionDetails: {
        reference: payment.reference,
        payee: payment.payee,
        paymentAmount: wireAmount(payment.amountMinor, payment.currency),
      },
      payer: payment.payer,
      expectedExecutionTime: payment.createdAt,
      expectedSettlementTime: payment.createdAt,
    };
  }
}
