import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  type ConsentRecord,
  ConsentsStore,
  ConsentTokenCodec,
  type SandboxContext,
  SandboxError,
  type SandboxUser,
  UsersStore,
  type WireAmount,
} from '../core/index.js';
import type { PayeeDto, PayerDto } from './payments.dto.js';
import type { VrpAlignment, VrpFrequency } from './vrp.dto.js';

/** What `details` holds on a PAYMENT consent: the authorised payment request, in its wire form. */
export interface PaymentConsentDetails {
  paymentRequest: {
    paymentIdempotencyId: string;
    type: string;
    reference?: string;
    contextType?: string;
    amount: WireAmount;
    payee: PayeeDto;
    payer?: PayerDto;
  };
}

export interface VrpControlParameters {
  psuAuthenticationMethods: string[];
  maxAmountPerPayment: WireAmount;
  periodicLimits: { frequency: VrpFrequency; alignment: VrpAlignment; totalMaxAmount: WireAmount }[];
  validFrom?: string;
  validTo?: string;
}

/** What `details` holds on a VRP_SWEEPING consent (sweeping, or commercial through the hosted flow). */
export interface VrpConsentDetails {
  vrpType: 'SWEEPING' | 'COMMERCIAL';
  controlParameters: VrpControlParameters;
  initiationDetails: {
    reference?: string;
    payee?: PayeeDto;
    payer?: PayerDto;
    [key: string]: unknown;
  };
  riskDetails?: Record<string, unknown>;
  hostedRequestId?: string;
}

export const SINGLE_PAYMENT_SCOPE = [
  'INITIATE_DOMESTIC_SINGLE_PAYMENT',
  'CREATE_DOMESTIC_SINGLE_PAYMENT',
  'EXISTING_PAYMENTS_DETAILS',
];

/** The VRP feature values of upstream spec §2.7. */
export const SWEEPING_VRP_SCOPE = [
  'EXISTING_PAYMENTS_DETAILS',
  'EXISTING_PAYMENT_INITIATION_DETAILS',
  'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
  'VARIABLE_RECURRING_PAYMENT_FUNDS_CONFIRMATION',
  'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
];

export const COMMERCIAL_VRP_SCOPE = [
  'EXISTING_PAYMENTS_DETAILS',
  'EXISTING_PAYMENT_INITIATION_DETAILS',
  'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
  'VARIABLE_RECURRING_PAYMENT_FUNDS_CONFIRMATION',
  'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
];

/** Consent handling shared by single payments, sweeping VRP and hosted commercial VRP. */
@Injectable()
export class PaymentConsentsService {
  private readonly codec: ConsentTokenCodec;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly consents: ConsentsStore,
    private readonly users: UsersStore,
  ) {
    this.codec = new ConsentTokenCodec(config.sandbox.adminToken);
  }

  /** The request's user: userUuid, or applicationUserId (created when unknown, upstream spec §2.5). */
  resolveUser(ctx: SandboxContext, ref: { userUuid?: string; applicationUserId?: string }): SandboxUser {
    if (!ref.userUuid && !ref.applicationUserId) {
      throw SandboxError.invalidProperty(
        'applicationUserId',
        'Either userUuid or applicationUserId must be provided',
      );
    }
    const user = this.users.resolve(ctx.application.id, ref);
    if (!user) throw SandboxError.invalidProperty('userUuid', `User ${ref.userUuid} was not found`);
    return user;
  }

  /**
   * The application's consent this token names, without any status check (signature only). For the routes that still accept a consumed payment consent (details, idempotent
   * replay); everything else goes through ConsentsStore.fromToken.
   */
  peek(ctx: SandboxContext, token: string | undefined): ConsentRecord | undefined {
    const claims = token ? this.codec.verify(token) : undefined;
    if (!claims || claims.app !== ctx.application.id) return undefined;
    const record = this.consents.get(ctx.application.id, claims.sub);
    return record?.consentToken === token ? record : undefined;
  }

  /** A usable VRP consent for the `consent` header (the errors of ConsentsStore.fromToken otherwise). */
  vrpFromToken(ctx: SandboxContext, token: string | undefined): ConsentRecord {
    const record = this.consents.fromToken(ctx, token, ['VRP_SWEEPING']);
    if (!record.details?.vrpType) {
      // Only this module's flows make VRP consents, and their tokens carry the details; anything else is forged.
      throw SandboxError.consent(
        403,
        'CONSENT_INVALID',
        `Consent ${record.id} has no VRP control parameters`,
      );
    }
    return record;
  }

  /** VrpSweepingAuthorisationResponse / VrpCommercialAuthorisationResponse of the upstream's OpenAPI. */
  /** Version 2 changes only GET /consents and GET /consents/{id} (upstream spec §9): VRP views are always v1. */
  vrpView(record: ConsentRecord) {
    const details = record.details as unknown as VrpConsentDetails;
    return {
      ...this.consents.view(record),
      controlParameters: details.controlParameters,
      initiationDetails: details.initiationDetails,
      payer: details.initiationDetails.payer,
      riskDetails: details.riskDetails,
    };
  }
}
