import { CONVERSION_DEFAULT_DAYS } from '#libs/domain/consents';
import { DAY_RANGE_MAX_DAYS } from '#libs/time';
import { OptionalDay, ReportMerchantFilter } from '../field-rules.js';

export class ConversionInput {
  @OptionalDay(
    `The first day (UTC) whose consents are counted, included. Default: ${CONVERSION_DEFAULT_DAYS - 1} days before \`to\`; at most ${DAY_RANGE_MAX_DAYS} days before it.`,
  )
  from?: string;

  @OptionalDay('The last day (UTC) whose consents are counted, included. Default: today.')
  to?: string;
}

export class OperatorConversionInput extends ConversionInput {
  @ReportMerchantFilter('consents')
  merchantId?: string;
}
