import { RequiredDateTime } from '../../common/field-rules.js';

/** A recovery: the endpoint's deliveries failed for good since then are sent again. */
export class RecoverDeliveriesInput {
  @RequiredDateTime(
    'Every delivery to the endpoint created at or after this time that FAILED for good is sent again. Not in the future, nor older than retention (EVENT_RETENTION_DAYS)',
  )
  since!: string;
}
