import { Body, Get, Headers, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { PaymentsService, SinglePaymentsService } from '#libs/domain/payments';
import { ApiAnswer, ApiPsuHeaders, envelope, Psu, type PsuInput, Tenant } from '#libs/http';
import { ApiFeatureUnsupported, ApiInvalid, ApiMissing, ApiUpstreamErrors } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { requireIdempotencyKey } from '../common/idempotency/idempotency-key.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { ListInput } from '../common/inputs/list.input.js';
import { PaymentOutput } from '../common/outputs/payment.output.js';
import { keysetPage } from '../common/paging.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { CreateSinglePaymentInput } from './inputs/create-single-payment.input.js';

/** Single payments, and every payment of a user, single and VRP (docs/payments.md). */
@SessionReachableController('payments', 'v1')
export class PaymentsController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly single: SinglePaymentsService,
  ) {}

  @Post('users/:userId/payments')
  @Idempotent()
  @ApiOperation({
    summary: 'Start a single payment (the user approves it at the bank)',
    description:
      'Needs an Idempotency-Key (a retry with it returns the same payment). Asks the upstream for a single-use payment consent and answers the payment, AWAITING_AUTHORIZATION, with the bank’s `authorisationUrl`. When the user approves, the callback makes the payment exactly once and sends the browser to `redirectUrl?paymentId=…&consentId=…&status=…`; `payment.completed` or `payment.failed` follows once (webhook, or the status poll). The consent is spent: it never pays twice.',
  })
  @ApiAnswer(201, PaymentOutput)
  @ApiInvalid(
    'VALIDATION_FAILED: a bad amount, payee or redirectUrl, no Idempotency-Key, a PSU header the bank requires missing, or the upstream refused the institution',
  )
  @ApiMissing()
  @ApiFeatureUnsupported()
  @ApiUpstreamErrors()
  @ApiPsuHeaders()
  async createSingle(
    @IdParam('userId') userId: string,
    @Body() body: CreateSinglePaymentInput,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    const key = requireIdempotencyKey(idempotencyKey);
    return envelope(await this.single.create(caller, userId, body, key, psu));
  }

  @Get('users/:userId/payments')
  @ApiOperation({ summary: 'A user’s payments, single and VRP, newest first (keyset-paged)' })
  @ApiAnswer(200, PaymentOutput, { list: true })
  @ApiInvalid()
  @ApiMissing()
  async list(@IdParam('userId') userId: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    const page = keysetPage(query, `/v1/users/${encodeURIComponent(userId)}/payments`);
    const { payments, nextBeforeId } = await this.payments.listForUser(
      caller,
      userId,
      page.limit,
      page.after,
    );
    return page.answer(payments, nextBeforeId);
  }

  @Get('payments/:paymentId')
  @ApiOperation({
    summary: 'One payment and its status',
    description:
      'The status comes from the upstream’s webhooks, with the worker’s status poll as the fallback; read from our database, never the bank.',
  })
  @ApiAnswer(200, PaymentOutput)
  @ApiMissing()
  async get(@IdParam('paymentId') paymentId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.payments.get(caller, paymentId));
  }
}
