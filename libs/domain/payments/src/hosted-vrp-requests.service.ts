import { Inject, Injectable } from '@nestjs/common';
import { assertActsFor, describeWork, type MerchantId, type TenantCaller, tenantOf } from '#libs/context';
import { checkRedirectUrl, ConsentRepository, HostedConsentsService } from '#libs/domain/consents';
import { moneyToStrings } from '#libs/domain/financial-data';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { CLOCK, type Clock } from '#libs/time';
import {
  type HostedVrpRequest,
  type PsuHeaders,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
  type UpstreamErrorKind,
} from '#libs/upstream-client';
import { HostedVrpRequestRepository, type StoredHostedVrpRequest } from './hosted-vrp-request.repository.js';
import { checkPayee, type PayeeInput, wireAmount, wirePayee } from './payment-amount.js';
import { checkedControlParameters, type StoredControlParameters } from './vrp-control-parameters.js';

type Money = { amount: string; currency: string };

export interface HostedVrpRequestInput {
  institutionId: string;
  redirectUrl: string;
  payee: PayeeInput;
  reference?: string;
  controlParameters: {
    maxAmountPerPayment: Money;
    periodicLimit: { frequency: string; totalMaxAmount: Money };
    validFrom?: string;
    validTo?: string;
  };
  riskDetails: {
    paymentContextCode: string;
    paymentPurposeCode: string;
    categoryPurposeCode: string;
    merchantCustomerId?: string;
    isPayeePrepopulated?: boolean;
    payeeAccountType?: string;
  };
}

/** The upstream's statuses of a hosted request (its OpenAPI lists none; these are what it answers). */
const SUCCEEDED = 'succeed';

const notFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Hosted VRP request not found.');
/** What an upstream hosted request id looks like: anything else is asked nothing and is not found. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const userNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');

/**
 * Commercial VRP through the upstream's hosted page (docs/payments.md): the request made for a user,
 * the user sent to `hostedUrl` to choose a bank and approve the limits, and the consent it gives taken
 * from the request's result the first time the request is read after. Payments under it are then made
 * as under a sweeping consent: POST /v1/vrp/consents/{consentId}/payments.
 */
const wire = (money: Money) => wireAmount(money.amount, money.currency);

/** The checked limits as the hosted request sends them: its one periodic limit, amounts as JSON numbers. */
function hostedControl(
  control: StoredControlParameters,
  periodicLimit: HostedVrpRequestInput['controlParameters']['periodicLimit'],
) {
  return {
    maxAmountPerPayment: wire(control.maxAmountPerPayment),
    periodicLimit: { frequency: periodicLimit.frequency, totalMaxAmount: wire(periodicLimit.totalMaxAmount) },
    validFrom: control.validFrom,
    ...(control.validTo ? { validTo: control.validTo } : {}),
  };
}

/**
 * The request as the API shows it: amounts as strings, and of its result only the upstream consent id.
 * The result's consent token is never passed on: the BFF keeps tokens, merchants get ids.
 */
function shown({ result, ...rest }: HostedVrpRequest) {
  return {
    ...moneyToStrings(rest),
    ...(result ? { result: { upstreamConsentId: result.consentId ?? null } } : {}),
  };
}

@Injectable()
export class HostedVrpRequestsService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly requests: HostedVrpRequestRepository,
    private readonly consents: ConsentRepository,
    private readonly hostedConsents: HostedConsentsService,
  ) {}

  async create(caller: TenantCaller, userId: string, input: HostedVrpRequestInput, psu: PsuHeaders = {}) {
    assertActsFor(caller, userId);
    const user = await this.consents.findUserForAuthorisation(tenantOf(caller), userId);
    if (!user) throw userNotFound();
    checkRedirectUrl(input.redirectUrl, user.merchant.frontendOrigins);
    checkPayee(input.payee, 'payee');
    const { periodicLimit, ...rest } = input.controlParameters;
    const control = checkedControlParameters(
      { ...rest, periodicLimits: [{ ...periodicLimit, alignment: 'CONSENT' }] },
      this.clock.now(),
      () => 'controlParameters.periodicLimit',
    );
    const initiationDetails = {
      payee: wirePayee(input.payee),
      ...(input.reference ? { reference: input.reference } : {}),
    };
    const subApplication = user.merchant.subApplicationId ?? undefined;
    let created;
    try {
      created = (
        await this.upstream.vrp.createCommercialRequest(
          {
            applicationUserId: user.applicationUserId,
            institutionIdentifiers: { institutionId: input.institutionId },
            controlParameters: hostedControl(control, periodicLimit),
            initiationDetails,
            redirectUrl: input.redirectUrl,
            // The redirect goes to the merchant's page, which must never hold a consent token; we take
            // the consent from the request's result instead.
            oneTimeToken: true,
            riskDetails: {
              ...input.riskDetails,
              merchantCustomerId: input.riskDetails.merchantCustomerId ?? user.applicationUserId,
              isPayeePrepopulated: input.riskDetails.isPayeePrepopulated ?? true,
            },
          },
          { subApplication, psu },
        )
      ).data;
    } catch (error) {
      throw mapUpstreamFailure(error, { field: 'institutionId' });
    }
    await this.requests.create(tenantOf(caller), {
      id: created.requestId,
      userId,
      institutionId: input.institutionId,
      controlParameters: control as never,
      initiationDetails,
    });
    return {
      requestId: created.requestId,
      hostedUrl: created.hostedUrl,
      institutionId: input.institutionId,
      authorisationExpiresAt: created.authorisationExpiresAt ?? null,
      controlParameters: control,
    };
  }

  /**
   * The request as the upstream has it, and once it succeeded, our consent for it (created by this read
   * the first time). A request made elsewhere is shown only to the sub-application that owns it.
   */
  async get(caller: TenantCaller, requestId: string) {
    const tenant = tenantOf(caller);
    const row = await this.requests.find(tenant, requestId, caller.userId);
    if (!row) return { ...(await this.madeElsewhere(tenant, requestId)), consentId: null };
    // Once the request has become a consent, reading it is a call for that consent (none before: no subject).
    if (row.consentId)
      describeWork({ merchantId: tenant, institutionId: row.institutionId, consentId: row.consentId });
    const subApplication = await this.consents.subApplicationOf(tenant);
    const request = await this.upstreamRequest(requestId, subApplication, ['NOT_FOUND']);
    const { result } = request;
    // Taken once: a request already linked to its consent costs no write on later reads. One that was
    // taken but not linked (its reader died between) is taken again, which finds the same consent.
    const consentId =
      row.consentId ??
      (request.status?.currentStatus === SUCCEEDED && result?.consentId && result.consentToken
        ? await this.adopt(tenant, row, result.consentId, result.consentToken, subApplication)
        : null);
    return { ...shown(request), consentId };
  }

  /**
   * A request we hold no row of (made elsewhere, or not at all). The upstream scopes hosted requests by
   * application, so asking as the merchant's sub-application answers only that merchant's requests;
   * anything else is 404. A merchant without a sub-application shares the root application with every
   * other such merchant, and we keep no record of which merchant created a root request, so it cannot
   * prove ownership of any hosted request: it always gets 404 NOT_FOUND (without asking the upstream),
   * never another merchant's request.
   */
  private async madeElsewhere(tenant: MerchantId, requestId: string) {
    if (!REQUEST_ID.test(requestId)) throw notFound();
    const subApplication = await this.consents.subApplicationOf(tenant);
    if (!subApplication) throw notFound();
    return shown(await this.upstreamRequest(requestId, subApplication, ['NOT_FOUND', 'FORBIDDEN']));
  }

  /** The request as the upstream has it; one it answers with a `hidden` kind of error is our 404. */
  private async upstreamRequest(
    requestId: string,
    subApplication: string | undefined,
    hidden: readonly UpstreamErrorKind[],
  ): Promise<HostedVrpRequest> {
    try {
      return (await this.upstream.vrp.getCommercialRequest(requestId, { subApplication })).data;
    } catch (error) {
      if (error instanceof UpstreamError && hidden.includes(error.kind)) throw notFound();
      throw mapUpstreamFailure(error, { field: 'requestId' });
    }
  }

  private async adopt(
    tenant: MerchantId,
    row: StoredHostedVrpRequest,
    upstreamConsentId: string,
    consentToken: string,
    subApplication: string | undefined,
  ): Promise<string> {
    const control = row.controlParameters as unknown as StoredControlParameters;
    const consent = await this.hostedConsents.adopt(tenant, {
      userId: row.userId,
      kind: 'VRP_COMMERCIAL',
      institutionId: row.institutionId,
      upstreamConsentId,
      consentToken,
      expiresAt: control.validTo ? new Date(control.validTo) : null,
      vrpControlParameters: row.controlParameters as never,
      vrpInitiationDetails: row.initiationDetails as never,
      subApplication,
    });
    await this.requests.linkConsent(tenant, row.id, consent.id);
    return consent.id;
  }
}
