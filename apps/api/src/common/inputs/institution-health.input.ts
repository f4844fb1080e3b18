import { HEALTH_DEFAULT_DAYS, HEALTH_HOURLY_MAX_DAYS } from '#libs/domain/upstream-calls';
import { DAY_RANGE_MAX_DAYS } from '#libs/time';
import { OptionalDay, ReportMerchantFilter } from '../field-rules.js';

export class InstitutionHealthInput {
  @OptionalDay(
    `The first day (UTC) whose calls are counted, included. Default: ${HEALTH_DEFAULT_DAYS - 1} days before \`to\`; at most ${DAY_RANGE_MAX_DAYS} days before it. Up to ${HEALTH_HOURLY_MAX_DAYS} days are bucketed by the hour, more by the day.`,
  )
  from?: string;

  @OptionalDay('The last day (UTC) whose calls are counted, included. Default: today.')
  to?: string;
}

export class OperatorInstitutionHealthInput extends InstitutionHealthInput {
  @ReportMerchantFilter('calls')
  merchantId?: string;
}
