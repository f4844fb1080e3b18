import { IsPaymentReference } from '../../common/field-rules.js';
import { MoneyField, MoneyInput } from '../../common/inputs/money.input.js';

export class CreateVrpPaymentInput {
  @MoneyField('A decimal string of the consent’s currency, never rounded')
  amount!: MoneyInput;

  @IsPaymentReference({ required: false, example: 'Sweep', description: 'Shown on both statements' })
  reference?: string;
}
