import { Injectable } from '@nestjs/common';
import { assertActsFor, type TenantCaller, tenantOf } from '#libs/context';
import { ConsentRepository } from '#libs/domain/consents';
import { DomainError, ErrorCode } from '#libs/errors';
import { PaymentRepository, type PaymentView } from './payment.repository.js';

export const paymentNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Payment not found.');
const userNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');

/** Payments as the API shows them, single and VRP alike: a merchant's any, a session's only its user's. */
@Injectable()
export class PaymentsService {
  constructor(
    private readonly payments: PaymentRepository,
    private readonly consents: ConsentRepository,
  ) {}

  async get(caller: TenantCaller, paymentId: string): Promise<PaymentView> {
    const payment = await this.payments.findForCaller(tenantOf(caller), paymentId, caller.userId);
    if (!payment) throw paymentNotFound();
    return payment;
  }

  async listForUser(caller: TenantCaller, userId: string, limit: number, beforeId?: string) {
    assertActsFor(caller, userId);
    if (!(await this.consents.userExists(tenantOf(caller), userId))) throw userNotFound();
    const { rows, more } = await this.payments.listForUser(tenantOf(caller), userId, limit, beforeId);
    return { payments: rows, nextBeforeId: more ? rows.at(-1)!.id : undefined };
  }
}
