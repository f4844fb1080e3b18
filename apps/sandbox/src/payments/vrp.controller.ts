import { Body, Controller, Get, Headers, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Ctx, envelope, type SandboxContext } from '../core/index.js';
import { PaymentConsentsService } from './payment-consents.service.js';
import { PaymentLifecycleService } from './payment-lifecycle.service.js';
import {
  VrpFundsConfirmationRequestDto,
  VrpSubmissionRequestDto,
  VrpSweepingAuthorisationRequestDto,
} from './vrp.dto.js';
import { VrpConsentsService } from './vrp-consents.service.js';
import { VrpPaymentsService } from './vrp-payments.service.js';

/** Variable recurring payments (upstream spec §4.3): sweeping consents, commercial consent details, funds, payments. */
@Controller('variable-recurring-payments')
export class VrpController {
  constructor(
    private readonly vrpConsents: VrpConsentsService,
    private readonly vrpPayments: VrpPaymentsService,
    private readonly paymentConsents: PaymentConsentsService,
    private readonly lifecycle: PaymentLifecycleService,
  ) {}

  @Post('sweeping/consents')
  createSweepingConsent(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Body() body: VrpSweepingAuthorisationRequestDto,
  ) {
    const consent = this.vrpConsents.createSweepingConsent(ctx, body);
    return envelope(request, this.paymentConsents.vrpView(consent));
  }

  @Get('sweeping/consents/:consentId')
  getSweepingConsent(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Param('consentId') consentId: string,
  ) {
    const consent = this.vrpConsents.getConsent(ctx, consentId, 'SWEEPING');
    return envelope(request, this.paymentConsents.vrpView(consent));
  }

  @Get('commercial/consents/:consentId')
  getCommercialConsent(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Param('consentId') consentId: string,
  ) {
    const consent = this.vrpConsents.getConsent(ctx, consentId, 'COMMERCIAL');
    return envelope(request, this.paymentConsents.vrpView(consent));
  }

  @Post('funds-confirmation')
  fundsConfirmation(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Headers('consent') token: string | undefined,
    @Body() body: VrpFundsConfirmationRequestDto,
  ) {
    return envelope(request, this.vrpPayments.fundsConfirmation(ctx, token, body));
  }

  @Post('payments')
  createPayment(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Headers('consent') token: string | undefined,
    @Body() body: VrpSubmissionRequestDto,
  ) {
    return envelope(request, this.lifecycle.vrpView(this.vrpPayments.createPayment(ctx, token, body)));
  }

  @Get('payments/:paymentId/details')
  paymentDetails(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Headers('consent') token: string | undefined,
    @Param('paymentId') paymentId: string,
  ) {
    return envelope(request, this.lifecycle.vrpView(this.vrpPayments.paymentDetails(ctx, token, paymentId)));
  }
}
