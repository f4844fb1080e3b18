import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  authorisationUrlFor,
  callbackOf,
  type ConsentRecord,
  ConsentsStore,
  InstitutionsCatalog,
  MAX_DATA_CONSENT_MS,
  type PsuEndpoint,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
  type SandboxInstitution,
  type SandboxUser,
  UsersStore,
} from '../../core/index.js';
import { type AccountConsentDetails, ConsentFlowsService } from '../consent-flows.service.js';
import type { AccountAuthorisationRequestDto } from './account-auth.dto.js';

/** Features that read data: what an account consent can grant (initiation features are not scopes). */
export function dataScopesOf(institution: SandboxInstitution): string[] {
  return institution.features.filter((f) => !f.startsWith('INITIATE_') && f !== 'ACCOUNT_REQUEST_DETAILS');
}

interface AccountTerms {
  featureScope: string[];
  expiresAt: string;
  transactionFrom?: string;
  transactionTo?: string;
}

/** The rules every account authorisation request shares (redirect, re-authorisation, pre-auth, embedded). */
@Injectable()
export class AccountAuthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly consents: ConsentsStore,
    private readonly users: UsersStore,
    private readonly catalog: InstitutionsCatalog,
    private readonly clock: SandboxClockService,
    private readonly flows: ConsentFlowsService,
  ) {}

  /** The user named by userUuid or applicationUserId; an unknown applicationUserId creates one (upstream spec §2.5). */
  resolveUser(ctx: SandboxContext, body: { userUuid?: string; applicationUserId?: string }): SandboxUser {
    if (!body.userUuid && !body.applicationUserId) {
      throw SandboxError.invalidProperty(
        'applicationUserId',
        'Either userUuid or applicationUserId is required',
      );
    }
    if (body.userUuid) {
      const user = this.users.get(ctx.application.id, body.userUuid);
      if (!user) throw SandboxError.invalidProperty('userUuid', `User ${body.userUuid} was not found`);
      if (body.applicationUserId && user.applicationUserId !== body.applicationUserId) {
        throw SandboxError.invalidProperty(
          'applicationUserId',
          'applicationUserId does not match the user of userUuid',
        );
      }
      return user;
    }
    return this.users.resolve(ctx.application.id, { applicationUserId: body.applicationUserId })!;
  }

  /**
   * What the consent grants. As a strict upstream (spec §2.5): the scopes and the expiry are mandatory,
   * each scope a data feature of the institution, the expiry in the future and capped at 90 days from
   * now; a transaction range is optional.
   */
  terms(
    institution: SandboxInstitution,
    request: AccountAuthorisationRequestDto['accountRequest'],
  ): AccountTerms {
    const featureScope = request?.featureScope ?? [];
    if (featureScope.length === 0) {
      throw SandboxError.invalidProperty(
        'accountRequest.featureScope',
        'featureScope is mandatory for an account authorisation',
      );
    }
    const allowed = dataScopesOf(institution);
    for (const feature of featureScope) {
      if (!allowed.includes(feature)) {
        throw SandboxError.invalidProperty(
          'accountRequest.featureScope',
          `${feature} is not a data feature institution ${institution.id} supports`,
        );
      }
    }
    if (!request?.expiresAt) {
      throw SandboxError.invalidProperty('accountRequest.expiresAt', 'expiresAt is mandatory');
    }
    const now = this.clock.nowMs();
    const requested = Date.parse(request.expiresAt);
    if (requested <= now)
      throw SandboxError.invalidProperty('accountRequest.expiresAt', 'expiresAt must be in the future');
    // Spec §1: a data consent is valid for up to 90 days; a longer one is refused, never quietly shortened.
    if (requested > now + MAX_DATA_CONSENT_MS)
      throw SandboxError.invalidProperty(
        'accountRequest.expiresAt',
        'expiresAt must be at most 90 days from now (a financial-data consent is valid for up to 90 days)',
      );
    const expiresAt = new Date(requested).toISOString();
    const from = request?.transactionFrom;
    const to = request?.transactionTo;
    if (institution.requiresTransactionRange && !from) {
      throw SandboxError.invalidProperty(
        'accountRequest.transactionFrom',
        `transactionFrom is mandatory: institution ${institution.id} takes a transaction range`,
      );
    }
    if (from && to && Date.parse(from) > Date.parse(to)) {
      throw SandboxError.invalidProperty(
        'accountRequest.transactionTo',
        'transactionTo must not be before transactionFrom',
      );
    }
    return {
      featureScope,
      expiresAt,
      transactionFrom: from && new Date(from).toISOString(),
      transactionTo: to && new Date(to).toISOString(),
    };
  }

  callbackOf(body: AccountAuthorisationRequestDto): string | undefined {
    const callback = callbackOf(body);
    if (body.oneTimeToken && !callback) {
      throw SandboxError.invalidProperty('oneTimeToken', 'oneTimeToken can only be used with a callback');
    }
    return callback;
  }

  /** A new account consent for the redirect or the embedded flow, not yet authorised. */
  create(
    ctx: SandboxContext,
    body: AccountAuthorisationRequestDto,
    institution: SandboxInstitution,
    status: string,
  ): ConsentRecord {
    const callback = this.callbackOf(body);
    const terms = this.terms(institution, body.accountRequest);
    const user = this.resolveUser(ctx, body);
    const record = this.consents.create({
      kind: 'ACCOUNT',
      applicationId: ctx.application.id,
      userUuid: user.uuid,
      applicationUserId: user.applicationUserId,
      dataKey: user.dataKey,
      referenceId: user.referenceId,
      institutionId: institution.id,
      status,
      featureScope: terms.featureScope,
      expiresAt: terms.expiresAt,
      transactionFrom: terms.transactionFrom,
      transactionTo: terms.transactionTo,
      state: this.flows.newState(),
      callback,
      oneTimeToken: body.oneTimeToken ?? false,
      forwardParameters: body.forwardParameters,
      details: {},
    });
    if (institution.flow === 'REDIRECT') {
      record.authorisationUrl = authorisationUrlFor(this.config.sandbox.publicUrl, record.id);
      this.consents.update(record);
    }
    return record;
  }

  /** Applies a pre-authorisation update: new terms, then back to the PSU for authorisation. */
  update(
    record: ConsentRecord,
    body: AccountAuthorisationRequestDto,
    institution: SandboxInstitution,
  ): ConsentRecord {
    const callback = this.callbackOf(body);
    const terms = this.terms(institution, body.accountRequest);
    const details = (record.details ?? {}) as AccountConsentDetails;
    Object.assign(record, {
      status: 'AWAITING_AUTHORIZATION',
      featureScope: terms.featureScope,
      expiresAt: terms.expiresAt,
      transactionFrom: terms.transactionFrom ?? record.transactionFrom,
      transactionTo: terms.transactionTo ?? record.transactionTo,
      state: this.flows.newState(),
      callback: callback ?? record.callback,
      oneTimeToken: body.oneTimeToken ?? false,
      forwardParameters: body.forwardParameters ?? record.forwardParameters,
      authorisationUrl: authorisationUrlFor(this.config.sandbox.publicUrl, record.id),
      details: {
        ...details,
        // New terms name their own expiry: no re-authorisation is pending any more.
        expiresAtBeforeReauthorisation: undefined,
      },
    });
    return this.consents.update(record);
  }

  /** Re-authorisation: the PSU is asked again; approval issues a new token and a new expiry. */
  reauthorise(record: ConsentRecord): ConsentRecord {
    const details = (record.details ?? {}) as AccountConsentDetails;
    record.details = {
      ...details,
      // Asked again while pending: the expiry before the first request is the one a quirky bank keeps.
      expiresAtBeforeReauthorisation: details.expiresAtBeforeReauthorisation ?? record.expiresAt,
    } satisfies AccountConsentDetails;
    record.status = 'AWAITING_RE_AUTHORIZATION';
    // Awaiting consents past their expiry turn EXPIRED on read; the new expiry is set on approval.
    record.expiresAt = undefined;
    record.state = this.flows.newState();
    record.authorisationUrl = authorisationUrlFor(this.config.sandbox.publicUrl, record.id);
    return this.consents.update(record);
  }

  institution(id: string, ...features: string[]): SandboxInstitution {
    return this.catalog.requireFeature(id, ...features);
  }

  /** The institution's PSU headers on this method of `/account-auth-requests`. */
  requirePsuHeaders(
    institution: SandboxInstitution,
    method: 'POST' | 'PUT' | 'PATCH',
    request: FastifyRequest,
    path: PsuEndpoint['path'] = '/account-auth-requests',
  ): void {
    this.catalog.requirePsuHeaders(institution, { method, path }, request.headers);
  }
}
