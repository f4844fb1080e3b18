import { Injectable } from '@nestjs/common';
import {
  type ConsentRecord,
  ResetRegistryService,
  type SandboxContext,
  SandboxError,
} from '../core/index.js';

/** PaymentStatus values of the upstream's OpenAPI that the sandbox uses. */
export type PaymentStatus = 'PENDING' | 'COMPLETED' | 'FAILED' | 'DECLINED' | 'EXPIRED';
export const TERMINAL_STATUSES: readonly PaymentStatus[] = ['COMPLETED', 'FAILED', 'DECLINED', 'EXPIRED'];

export interface AccountIdentification {
  type: string;
  identification: string;
}

export interface Party {
  name?: string;
  accountIdentifications: AccountIdentification[];
  address?: Record<string, unknown>;
  accountType?: string;
  merchantId?: string;
  merchantCategoryCode?: string;
}

/** One single or VRP payment as the sandbox keeps it; the controllers render the wire forms. */
export interface PaymentRecord {
  id: string;
  kind: 'SINGLE' | 'VRP';
  vrpType?: 'SWEEPING' | 'COMMERCIAL';
  applicationId: string;
  consentId: string;
  institutionId: string;
  institutionConsentId: string;
  userUuid: string;
  applicationUserId?: string;
  /** PaymentType: DOMESTIC_PAYMENT, or DOMESTIC_VARIABLE_RECURRING_PAYMENT for VRP. */
  type: string;
  paymentIdempotencyId: string;
  amountMinor: number;
  currency: string;
  reference?: string;
  contextType?: string;
  payee: Party;
  payer?: Party;
  psuAuthenticationMethod?: string;
  psuInteractionType?: string;
  /** VRP only: the consent's initiation details, echoed on every submission. */
  initiationDetails?: Record<string, unknown>;
  status: PaymentStatus;
  statusReason?: string;
  statusReasonDescription?: string;
  statusUpdatedAt: string;
  createdAt: string;
  /** Set once the payment.state.* event for its terminal status has been emitted. */
  terminalEventAt?: string;
}

/** What a payment takes from the consent it is made under: whose it is, and at which bank. */
export function madeUnder(
  ctx: SandboxContext,
  consent: ConsentRecord,
): Pick<
  PaymentRecord,
  'applicationId' | 'consentId' | 'institutionId' | 'institutionConsentId' | 'userUuid' | 'applicationUserId'
> {
  return {
    applicationId: ctx.application.id,
    consentId: consent.id,
    institutionId: consent.institutionId,
    institutionConsentId: consent.institutionConsentId,
    userUuid: consent.userUuid,
    applicationUserId: consent.applicationUserId,
  };
}

/** A hosted commercial VRP request (upstream spec §2.10); its status is derived from its consent on read. */
export interface HostedVrpRequestRecord {
  requestId: string;
  applicationId: string;
  userId: string;
  applicationUserId: string;
  tppRedirectUrl: string;
  createdAt: string;
  authorisationExpiresAt: string;
  institutionIdentifiers: { institutionId: string; institutionCountryCode: string };
  userSettings?: { language?: string; location?: string };
  consentId: string;
  hostedUrl: string;
  currentStatus: 'created' | 'succeed' | 'rejected' | 'failed' | 'expired';
  statusUpdatedAt: string;
  errorCode: string | null;
}

export function idempotencyConflict(paymentIdempotencyId: string): SandboxError {
  return SandboxError.invalidProperty(
    'paymentIdempotencyId',
    `paymentIdempotencyId ${paymentIdempotencyId} was already used for a different payment`,
  );
}

@Injectable()
export class PaymentsStore {
  private payments = new Map<string, PaymentRecord>();
  /** `${applicationId} ${paymentIdempotencyId}` → payment id. */
  private idempotency = new Map<string, string>();
  private hosted = new Map<string, HostedVrpRequestRecord>();

  constructor(resets: ResetRegistryService) {
    resets.registerMaps(
      'payments',
      () => ({ payments: this.payments, idempotency: this.idempotency, hosted: this.hosted }),
      (maps) => {
        ({ payments: this.payments, idempotency: this.idempotency, hosted: this.hosted } = maps);
      },
    );
  }

  add(payment: PaymentRecord): PaymentRecord {
    this.payments.set(payment.id, payment);
    this.idempotency.set(`${payment.applicationId} ${payment.paymentIdempotencyId}`, payment.id);
    return payment;
  }

  get(applicationId: string, id: string): PaymentRecord | undefined {
    const payment = this.payments.get(id);
    return payment?.applicationId === applicationId ? payment : undefined;
  }

  /** A payment only its own consent may read; any other answers 404, as if it did not exist. */
  mustGetForConsent(
    applicationId: string,
    id: string,
    kind: PaymentRecord['kind'],
    consentId: string,
  ): PaymentRecord {
    const payment = this.get(applicationId, id);
    if (!payment || payment.kind !== kind || payment.consentId !== consentId) {
      throw SandboxError.notFound(
        `${kind === 'VRP' ? 'VRP payment' : 'Payment'} ${id} was not found for this consent`,
      );
    }
    return payment;
  }

  findAny(id: string): PaymentRecord | undefined {
    return this.payments.get(id);
  }

  byIdempotencyId(applicationId: string, paymentIdempotencyId: string): PaymentRecord | undefined {
    const id = this.idempotency.get(`${applicationId} ${paymentIdempotencyId}`);
    return id ? this.payments.get(id) : undefined;
  }

  ofConsent(consentId: string): PaymentRecord[] {
    return [...this.payments.values()].filter((p) => p.consentId === consentId);
  }

  addHosted(request: HostedVrpRequestRecord): HostedVrpRequestRecord {
    this.hosted.set(request.requestId, request);
    return request;
  }

  getHosted(applicationId: string, requestId: string): HostedVrpRequestRecord | undefined {
    const request = this.hosted.get(requestId);
    return request?.applicationId === applicationId ? request : undefined;
  }
}
