import { IsPaymentReference } from '../../common/field-rules.js';
import { MoneyField, MoneyInput } from '../../common/inputs/money.input.js';

export class ConfirmFundsInput {
  @IsPaymentReference({ required: false, example: 'Top-up', description: 'Sent to the bank with the check' })
  reference?: string;

  @MoneyField('As for a payment: a decimal string, never rounded')
  amount!: MoneyInput;
}
