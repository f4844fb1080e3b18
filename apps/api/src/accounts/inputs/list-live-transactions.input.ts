import { OptionalDateTime } from '../../common/field-rules.js';
import { PageCursor } from '../../common/paging.js';

export class ListLiveTransactionsInput {
  @OptionalDateTime('First page only')
  from?: string;

  @OptionalDateTime('First page only')
  before?: string;

  @PageCursor({
    description: 'Opaque cursor from meta.nextCursor (then from/before are refused)',
    nonEmpty: true,
    maxLength: 4096,
  })
  cursor?: string;
}
