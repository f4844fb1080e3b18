import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '#libs/errors';
import { ParkedPaymentRepository } from './parked-payment.repository.js';
import { PaymentStateRepository } from './payment-state.repository.js';
import { PaymentStatus } from './payment-status.js';
import type { ParkedPaymentView } from './payment-views.js';

/** What a person found at the bank: the money moved, or it did not. */
export type ParkedOutcome = typeof PaymentStatus.Completed | typeof PaymentStatus.Failed;

/**
 * The operator's side of payments no check will move any more (a repeated send refused while the first
 * may have been made, no token left to ask with, or no final status after 7 days): list them, and settle
 * each once a person has asked the bank. Settling applies the final status like a webhook would, with the
 * merchant's `payment.completed` or `payment.failed` event, once.
 */
@Injectable()
export class ParkedPaymentsService {
  constructor(
    private readonly parked: ParkedPaymentRepository,
    private readonly state: PaymentStateRepository,
  ) {}

  async list(
    limit: number,
    afterId?: string,
  ): Promise<{ payments: ParkedPaymentView[]; nextAfterId: string | null }> {
    const { rows, more } = await this.parked.list(limit, afterId);
    return { payments: rows, nextAfterId: more ? (rows.at(-1)?.id ?? null) : null };
  }

  async settle(
    id: string,
    outcome: ParkedOutcome,
    note?: string,
  ): Promise<{ id: string; merchantId: string; status: ParkedOutcome }> {
    const parked = await this.parked.find(id);
    if (!parked) {
      throw new DomainError(
        ErrorCode.NOT_FOUND,
        'No parked payment with this id: it does not exist, is final, or a status check will still move it.',
      );
    }
    const settled = await this.state.applyFinalStatusById(
      id,
      {
        status: outcome,
        statusDetails: {
          reason: note ?? `Settled by the operator as ${outcome.toLowerCase()} after checking with the bank`,
          settledBy: 'operator',
          ...(parked.reason ? { pollStopped: parked.reason } : {}),
        },
        reason: 'operator',
      },
      { onlyParked: true },
    );
    // A webhook settled it between the read and the write: that answer stands, and was announced.
    if (!settled) throw new DomainError(ErrorCode.CONFLICT, 'The payment reached a final status meanwhile.');
    return { id, merchantId: parked.merchantId, status: outcome };
  }
}
