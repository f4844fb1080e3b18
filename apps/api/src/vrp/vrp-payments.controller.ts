import { Body, Get, Headers, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { VrpPaymentsService } from '#libs/domain/payments';
import { ApiAnswer, ApiErrorResponse, envelope, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing, upstreamFailures } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { requireIdempotencyKey } from '../common/idempotency/idempotency-key.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { ListInput } from '../common/inputs/list.input.js';
import { PaymentOutput } from '../common/outputs/payment.output.js';
import { keysetPage } from '../common/paging.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { CreateVrpPaymentInput } from './inputs/create-vrp-payment.input.js';

/** Payments under a sweeping VRP consent, within its limits (docs/payments.md). */
@SessionReachableController('vrp', 'v1/vrp/consents')
export class VrpPaymentsController {
  constructor(private readonly payments: VrpPaymentsService) {}

  @Post(':consentId/payments')
  @Idempotent()
  @ApiOperation({
    summary: 'Pay under a sweeping VRP consent',
    description:
      'Needs an Idempotency-Key (a retry with it returns the same payment). Checked here before the bank is asked: the per-payment maximum, and every periodic limit in its current period (aligned to the consent or the calendar), counting this BFF’s payments under the consent that may have moved money. The check and the reservation are one atomic step, so concurrent payments cannot overspend together. A payment that would break a limit gets 422 VRP_LIMIT_EXCEEDED naming the limit and the headroom left.',
  })
  @ApiAnswer(201, PaymentOutput)
  @ApiInvalid(
    'VALIDATION_FAILED: a bad amount, another currency, more decimals than the currency has, no Idempotency-Key',
  )
  @ApiUnprocessableEntityResponse({ type: ApiErrorResponse, description: 'VRP_LIMIT_EXCEEDED' })
  @ApiMissing()
  @upstreamFailures()
  async pay(
    @IdParam('consentId') consentId: string,
    @Body() body: CreateVrpPaymentInput,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Tenant() caller: TenantCaller,
  ) {
    const key = requireIdempotencyKey(idempotencyKey);
    const payment = await this.payments.pay(
      caller,
      consentId,
      {
        amount: body.amount.amount,
        currency: body.amount.currency,
        ...(body.reference ? { reference: body.reference } : {}),
      },
      key,
    );
    return envelope(payment);
  }

  @Get(':consentId/payments')
  @ApiOperation({
    summary: 'The payments made under a sweeping VRP consent, newest first (keyset-paged)',
    description: 'Readable after the consent has ended (revoked or expired) too.',
  })
  @ApiAnswer(200, PaymentOutput, { list: true })
  @ApiInvalid()
  @ApiMissing()
  async list(
    @IdParam('consentId') consentId: string,
    @Query() query: ListInput,
    @Tenant() caller: TenantCaller,
  ) {
    const page = keysetPage(query, `/v1/vrp/consents/${encodeURIComponent(consentId)}/payments`);
    const { payments, nextBeforeId } = await this.payments.list(caller, consentId, page.limit, page.after);
    return page.answer(payments, nextBeforeId);
  }
}
