import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import type { Prisma } from '#libs/database';
import { uuidV7 } from '#libs/ids';
import { ConsentRepository, type StoredConsent } from './consent.repository.js';
import { ConsentAuthoriserService } from './consent-authoriser.service.js';
import type { ConsentKind } from './consent-kinds.js';
import { ConsentStatus } from './consent-status.js';

export interface GivenConsent {
  userId: string;
  kind: ConsentKind;
  institutionId: string;
  /** The upstream's id and token of the consent the hosted page gave. */
  upstreamConsentId: string;
  consentToken: string;
  expiresAt: Date | null;
  vrpControlParameters?: Prisma.InputJsonValue;
  vrpInitiationDetails?: Prisma.InputJsonValue;
  subApplication: string | undefined;
}

/**
 * Consents the upstream's hosted pages give rather than our redirect flow: no callback of ours runs, so
 * the consent is taken from the hosted request's result when it is read. At least once: the first
 * reader creates it, a reader that died half way is finished by the next, none makes a second.
 */
@Injectable()
export class HostedConsentsService {
  constructor(
    private readonly consents: ConsentRepository,
    private readonly authoriser: ConsentAuthoriserService,
  ) {}

  async adopt(merchantId: MerchantId, given: GivenConsent): Promise<StoredConsent> {
    const consent = await this.consents.findOrCreateAwaiting(merchantId, {
      id: uuidV7(),
      userId: given.userId,
      kind: given.kind,
      upstreamConsentId: given.upstreamConsentId,
      institutionId: given.institutionId,
      status: ConsentStatus.AwaitingAuthorisation,
      redirectUrl: null,
      stateNonce: null,
      authorisationUrl: null,
      featureScope: [],
      expiresAt: given.expiresAt,
      transactionsFrom: null,
      transactionsTo: null,
      ...(given.vrpControlParameters ? { vrpControlParameters: given.vrpControlParameters } : {}),
      ...(given.vrpInitiationDetails ? { vrpInitiationDetails: given.vrpInitiationDetails } : {}),
    });
    if (consent.status !== ConsentStatus.AwaitingAuthorisation) return consent;
    const stored = await this.authoriser.store(
      merchantId,
      consent,
      {
        id: given.upstreamConsentId,
        institutionId: given.institutionId,
        status: 'AUTHORIZED',
        consentToken: given.consentToken,
        ...(given.expiresAt ? { expiresAt: given.expiresAt.toISOString() } : {}),
      },
      given.subApplication,
    );
    return {
      ...consent,
      status: stored.applied ? ConsentStatus.Authorised : (stored.found ?? consent.status),
    };
  }
}
