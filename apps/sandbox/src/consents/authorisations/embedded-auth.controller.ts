import { Body, Controller, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  type ConsentRecord,
  ConsentsStore,
  Ctx,
  envelope,
  type SandboxContext,
  SandboxError,
  type ScaMethod,
} from '../../core/index.js';
import { ConsentFlowsService } from '../consent-flows.service.js';
import { EmbeddedAccountAuthorisationRequestDto, type ScaMethodDto } from './account-auth.dto.js';
import { AccountAuthService } from './account-auth.service.js';

/** The embedded bank's fixed login: any user id, this password; and the one SCA code it accepts. */
export const EMBEDDED_PASSWORD = 'secret';
export const EMBEDDED_SCA_CODE = '123456';

export const EMBEDDED_SCA_METHODS: readonly ScaMethod[] = [
  { id: 'sbx-sms-otp', type: 'SMS_OTP', description: 'Text message to •••• 0123' },
  { id: 'sbx-push-otp', type: 'PUSH_OTP', description: 'Sandbox Embedded Bank app' },
];

const FEATURE = 'INITIATE_EMBEDDED_ACCOUNT_REQUEST';

function conflict(record: ConsentRecord, step: string): SandboxError {
  const message = `Consent ${record.id} is ${record.status}: ${step} is not possible now`;
  return new SandboxError(409, message, [{ type: 'CONFLICT', code: 'CONSENT_STATUS_CONFLICT', message }]);
}

/**
 * The embedded flow (upstream spec §3, 4.1): credentials, SCA method, SCA code, then Get Consent until AUTHORIZED.
 * Credentials and codes are compared and dropped: never stored, never logged.
 */
@Controller('embedded-account-auth-requests')
export class EmbeddedAuthController {
  constructor(
    private readonly auth: AccountAuthService,
    private readonly flows: ConsentFlowsService,
    private readonly consents: ConsentsStore,
  ) {}

  @Post()
  create(
    @Ctx() ctx: SandboxContext,
    @Body() body: EmbeddedAccountAuthorisationRequestDto,
    @Req() request: FastifyRequest,
  ) {
    const institution = this.auth.institution(body.institutionId, FEATURE);
    this.auth.requirePsuHeaders(institution, 'POST', request, '/embedded-account-auth-requests');
    if (!body.userCredentials) {
      throw SandboxError.invalidProperty(
        'userCredentials',
        'userCredentials {id, password} are mandatory for the embedded flow',
      );
    }
    if (body.userCredentials.password !== EMBEDDED_PASSWORD) {
      const message = `${institution.name} rejected the login: wrong user id or password`;
      throw new SandboxError(400, message, [
        { type: 'INVALID_REQUEST', code: 'INVALID_USER_CREDENTIALS', parameter: 'userCredentials', message },
      ]);
    }
    // Steps given up front are checked before anything is created, so a refusal leaves no consent behind.
    if (body.selectedScaMethod && !EMBEDDED_SCA_METHODS.some((m) => m.id === body.selectedScaMethod!.id)) {
      throw SandboxError.invalidProperty(
        'selectedScaMethod.id',
        `Unknown SCA method ${body.selectedScaMethod.id}`,
      );
    }
    if (body.scaCode && !body.selectedScaMethod) {
      throw SandboxError.invalidProperty('selectedScaMethod', 'Choose an SCA method before sending the code');
    }
    if (body.scaCode && body.scaCode !== EMBEDDED_SCA_CODE) {
      throw SandboxError.invalidProperty('scaCode', 'Wrong SCA code');
    }
    const record = this.auth.create(ctx, body, institution, 'AWAITING_SCA_METHOD');
    record.scaMethods = EMBEDDED_SCA_METHODS.map((m) => ({ ...m }));
    this.consents.update(record);
    this.advance(record, body);
    return envelope(request, this.flows.wire(record));
  }

  @Put(':consentId')
  @HttpCode(201)
  update(
    @Ctx() ctx: SandboxContext,
    @Param('consentId') consentId: string,
    @Body() body: EmbeddedAccountAuthorisationRequestDto,
    @Req() request: FastifyRequest,
  ) {
    const record = this.flows.mustFind(ctx.application.id, consentId);
    if (record.kind !== 'ACCOUNT' || !record.scaMethods) {
      throw SandboxError.badRequest(`Consent ${consentId} is not an embedded account authorisation`);
    }
    if (body.institutionId !== record.institutionId) {
      throw SandboxError.invalidProperty(
        'institutionId',
        `The consent is for institution ${record.institutionId}`,
      );
    }
    this.auth.institution(record.institutionId, FEATURE);
    if (!body.selectedScaMethod && !body.scaCode) {
      throw SandboxError.invalidProperty('scaCode', 'Give selectedScaMethod, scaCode or both');
    }
    this.advance(record, body);
    return envelope(request, this.flows.wire(record));
  }

  private advance(record: ConsentRecord, body: EmbeddedAccountAuthorisationRequestDto): void {
    if (body.selectedScaMethod) this.selectMethod(record, body.selectedScaMethod);
    if (body.scaCode) this.submitCode(record, body.scaCode);
  }

  private selectMethod(record: ConsentRecord, chosen: ScaMethodDto): void {
    if (record.status !== 'AWAITING_SCA_METHOD' && record.status !== 'AWAITING_SCA_CODE') {
      throw conflict(record, 'choosing an SCA method');
    }
    const method = record.scaMethods?.find((m) => m.id === chosen.id);
    if (!method) {
      const ids = (record.scaMethods ?? []).map((m) => m.id).join(', ');
      throw SandboxError.invalidProperty(
        'selectedScaMethod.id',
        `Unknown SCA method ${chosen.id}; offered: ${ids}`,
      );
    }
    record.selectedScaMethod = { ...method };
    record.status = 'AWAITING_SCA_CODE';
    this.consents.update(record);
  }

  private submitCode(record: ConsentRecord, code: string): void {
    if (record.status === 'AWAITING_SCA_METHOD') {
      throw SandboxError.invalidProperty('selectedScaMethod', 'Choose an SCA method before sending the code');
    }
    if (record.status !== 'AWAITING_SCA_CODE') throw conflict(record, 'sending an SCA code');
    if (code !== EMBEDDED_SCA_CODE) {
      const left = this.flows.wrongScaCode(record);
      throw SandboxError.invalidProperty(
        'scaCode',
        left > 0 ? `Wrong SCA code; ${left} attempt(s) left` : 'Wrong SCA code; the authorisation has FAILED',
      );
    }
    this.flows.awaitInstitution(record);
  }
}
