import { RememberedQuery } from '#libs/http';
import { OptionalDateTime, OptionalRangeEnd } from '../../common/field-rules.js';
import { PageCursor } from '../../common/paging.js';

@RememberedQuery()
export class ListLiveTransactionsInput {
  @OptionalDateTime('Inclusive lower bound on `date`, first page only')
  from?: string;

  @OptionalRangeEnd('Exclusive upper bound on `date`, first page only')
  before?: string;

  @PageCursor({
    description: 'Opaque cursor from meta.nextCursor (then from/before are refused)',
    nonEmpty: true,
    maxLength: 4096,
  })
  cursor?: string;
}
