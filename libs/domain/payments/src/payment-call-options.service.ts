import { Injectable } from '@nestjs/common';
import { tenantOfRecord } from '#libs/context';
import { ConsentRepository, ConsentTokenVault } from '#libs/domain/consents';
import type { ConsentCallOptions } from '#libs/upstream-client';
import type { PaymentWork } from './payment.repository.js';

/** A payment's call to the bank: its consent's token, where to send it, and how the user authenticates. */
export type PaymentCallOptions = ConsentCallOptions & {
  psuAuthenticationMethod: string;
  commercial: boolean;
};

/**
 * The one place a payment's consent token is unsealed, for a submission and a status read alike: the
 * submitter says what to send, this says what it is sent with.
 */
@Injectable()
export class PaymentCallOptionsService {
  constructor(
    private readonly consents: ConsentRepository,
    private readonly vault: ConsentTokenVault,
  ) {}

  /** The consent's token and where to send it; null when the consent holds no token. */
  async forPayment(work: PaymentWork): Promise<PaymentCallOptions | null> {
    const tenant = tenantOfRecord(work);
    const found = await this.consents.findWithToken(tenant, work.consentId);
    const token = found ? this.vault.open(found.sealed, work.consentId) : null;
    if (!found || !token) return null;
    const control = found.consent.vrpControlParameters as { psuAuthenticationMethods?: string[] } | null;
    return {
      consent: token,
      institutionId: found.consent.institutionId,
      subApplication: await this.consents.subApplicationOf(tenant),
      psuAuthenticationMethod: control?.psuAuthenticationMethods?.[0] ?? 'SCA_NOT_REQUIRED',
      commercial: found.consent.kind === 'VRP_COMMERCIAL',
    };
  }
}
