import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditAction } from '#libs/domain/audit';
import { ParkedPaymentsService } from '#libs/domain/payments';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind, envelope } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { answered, Audited } from '../common/audit/audited.decorator.js';
import { IdParam } from '../common/id-param.js';
import { ListInput } from '../common/inputs/list.input.js';
import { keysetPage } from '../common/paging.js';
import { SettlePaymentInput } from './inputs/settle-payment.input.js';
import { ParkedPaymentOutput, SettledPaymentOutput } from './outputs/parked-payment.output.js';

/** Payments no check will move any more, for a person to settle with the bank. */
@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/payments')
export class AdminPaymentsController {
  constructor(private readonly parked: ParkedPaymentsService) {}

  @Get('parked')
  @ApiOperation({
    summary: 'Payments parked for a person',
    description:
      'Across merchants, oldest first, keyset-paged: payments that are not final and that no status check will move any more. A repeated send the bank refused (the first may have been made: status SUBMITTING), a consent with no token left to ask with, or no final status after 7 days. Ask the bank (quote `paymentIdempotencyId`, or `upstreamPaymentId` to the upstream), then settle each with POST /admin/payments/{id}/settle.',
  })
  @ApiAnswer(200, ParkedPaymentOutput, { list: true })
  @ApiInvalid('VALIDATION_FAILED (a bad cursor too)')
  async list(@Query() query: ListInput) {
    const page = keysetPage(query, '/admin/payments/parked');
    const { payments, nextAfterId } = await this.parked.list(page.limit, page.after);
    return page.answer(payments, nextAfterId);
  }

  @Post(':id/settle')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Settle a parked payment',
    description:
      'Applies the final status a person confirmed with the bank, exactly as a webhook would: the merchant gets `payment.completed` or `payment.failed` once, and a FAILED VRP payment stops counting against its limits. Only a parked payment: a payment a check may still move is 404, one that became final meanwhile 409.',
  })
  @ApiAnswer(200, SettledPaymentOutput)
  @ApiInvalid()
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND: no parked payment with this id' })
  @ApiConflictResponse({ type: ApiErrorResponse, description: 'CONFLICT: it became final meanwhile' })
  @Audited(AuditAction.PaymentSettle, {
    resource: 'payment',
    id: 'id',
    merchant: answered('merchantId'),
    fields: true,
  })
  async settle(@IdParam('id', 'Payment') id: string, @Body() body: SettlePaymentInput) {
    return envelope(await this.parked.settle(id, body.status, body.note));
  }
}
