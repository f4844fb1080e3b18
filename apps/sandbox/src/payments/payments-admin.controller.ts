import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ConsentsStore, SandboxAccess, SandboxError } from '../core/index.js';
import { PaymentConsentsService } from './payment-consents.service.js';
import { PaymentLifecycleService } from './payment-lifecycle.service.js';
import { ForcePaymentStatusDto } from './payments.dto.js';
import { type PaymentRecord, PaymentsStore } from './payments.store.js';

/**
 * Control API of the payments area: authorise a consent without the bank page (automated tests), and
 * settle a payment now instead of on its first status read.
 */
@SandboxAccess('admin')
@Controller('sandbox/admin')
export class PaymentsAdminController {
  constructor(
    private readonly consents: ConsentsStore,
    private readonly paymentConsents: PaymentConsentsService,
    private readonly store: PaymentsStore,
    private readonly lifecycle: PaymentLifecycleService,
  ) {}

  /** What the PSU's approval on the bank page does, for a consent of any kind still awaiting it. */
  @Post('consents/:consentId/authorise')
  @HttpCode(200)
  authorise(@Param('consentId') consentId: string) {
    const record = this.consents.findAny(consentId);
    if (!record) throw SandboxError.notFound(`Consent ${consentId} was not found`);
    if (!record.status.startsWith('AWAITING')) {
      throw new SandboxError(409, `Consent ${consentId} is ${record.status}`, [
        {
          type: 'CONFLICT',
          code: 'CONSENT_NOT_AWAITING_AUTHORIZATION',
          parameter: 'consentId',
          message: `Consent ${consentId} is ${record.status}; only a consent awaiting authorisation can be authorised`,
        },
      ]);
    }
    const authorised = this.consents.authorize(record);
    return { data: this.consents.view(authorised) };
  }

  @Get('payments/:paymentId')
  get(@Param('paymentId') paymentId: string) {
    return { data: this.view(this.mustFind(paymentId)) };
  }

  /** Moves a payment that is not yet terminal to a terminal status now; sends its payment.state.* event. */
  @Post('payments/:paymentId/status')
  @HttpCode(200)
  setStatus(@Param('paymentId') paymentId: string, @Body() body: ForcePaymentStatusDto) {
    const payment = this.mustFind(paymentId);
    this.lifecycle.force(payment, body.status, body.statusReason, body.statusReasonDescription);
    return { data: this.view(payment) };
  }

  private mustFind(paymentId: string): PaymentRecord {
    const payment = this.store.findAny(paymentId);
    if (!payment) throw SandboxError.notFound(`Payment ${paymentId} was not found`);
    return payment;
  }

  private view(payment: PaymentRecord) {
    return {
      ...(payment.kind === 'SINGLE' ? this.lifecycle.singleView(payment) : this.lifecycle.vrpView(payment)),
      kind: payment.kind,
      applicationId: payment.applicationId,
      consentId: payment.consentId,
      eventSentAt: payment.terminalEventAt,
    };
  }
}
