import { Body, Controller, Get, Headers, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ConsentsStore, Ctx, envelope, type SandboxContext } from '../core/index.js';
import { PaymentLifecycleService } from './payment-lifecycle.service.js';
import { PaymentAuthorisationRequestDto, PaymentRequestDto } from './payments.dto.js';
import { PaymentsService } from './payments.service.js';

/** Single (domestic) payments: authorisation request, payment creation and payment details. */
@Controller()
export class PaymentsController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly consents: ConsentsStore,
    private readonly lifecycle: PaymentLifecycleService,
  ) {}

  @Post('payment-auth-requests')
  createAuthorisation(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Body() body: PaymentAuthorisationRequestDto,
  ) {
    const consent = this.payments.createAuthorisation(ctx, body, request.headers);
    return envelope(request, this.consents.view(consent));
  }

  @Post('payments')
  create(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Headers('consent') token: string | undefined,
    @Body() body: PaymentRequestDto,
  ) {
    return envelope(request, this.lifecycle.singleView(this.payments.create(ctx, token, body)));
  }

  @Get('payments/:paymentId/details')
  details(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Headers('consent') token: string | undefined,
    @Param('paymentId') paymentId: string,
  ) {
    const payment = this.payments.details(ctx, token, paymentId);
    return envelope(request, { payments: [this.lifecycle.singleView(payment)] });
  }
}
