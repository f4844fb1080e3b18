import { Get, Query } from '@nestjs/common';
import { ApiGoneResponse, ApiOperation } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { type FeedPosition, TransactionChangesService } from '#libs/domain/sync';
import { ApiAnswer, ApiErrorResponse, envelope, Tenant } from '#libs/http';
import { isUuid } from '#libs/ids';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { decodeCursor, encodeCursor } from '../common/paging.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { ListTransactionChangesInput } from './inputs/list-transaction-changes.input.js';
import { TransactionChangesOutput } from './outputs/transaction-changes.output.js';

/**
 * A cursor names its user's feed and a position in it (a change's number, and within a first sync's batch
 * the last transaction read): another user's cursor is refused, not misread.
 */
const SEQ = /^\d{1,18}$/;

/** The position a cursor of `userId`'s feed names; 400 for anything else. */
function positionOf(cursor: string | undefined, userId: string): FeedPosition | undefined {
  const value = decodeCursor(
    cursor,
    (decoded) => {
      const [owner, seq, afterId, ...rest] = decoded.split('|');
      return (
        owner === userId &&
        rest.length === 0 &&
        SEQ.test(seq ?? '') &&
        (afterId === undefined || isUuid(afterId))
      );
    },
    'must be nextCursor of a page of this user’s feed',
  );
  if (value === undefined) return undefined;
  const [, seq, afterId] = value.split('|');
  return { seq: BigInt(seq), ...(afterId === undefined ? {} : { afterId }) };
}

const cursorOf = (userId: string, { seq, afterId }: FeedPosition) =>
  encodeCursor(afterId === undefined ? `${userId}|${seq}` : `${userId}|${seq}|${afterId}`);

@SessionReachableController('sync', 'v1/users')
export class TransactionChangesController {
  constructor(private readonly changes: TransactionChangesService) {}

  @Get(':userId/transactions/changes')
  @ApiOperation({
    summary: "Changes to a user's stored transactions since a cursor",
    description:
      'For keeping a copy of a user’s transactions (all accounts, or one with `accountId`): the records added, modified and removed since `cursor`, in the order the syncs committed them. Without a cursor the first pages list every stored record as added. Apply each page to the copy (added and modified as upserts by id, then removed), keep `nextCursor`, and ask again while `hasMore`; later, after a `transactions.changed` event or on a schedule, ask from the kept cursor. A record changed several times since the cursor is listed once, as it is now. No change is skipped or repeated across pages, whatever syncs run meanwhile; a reconnected bank’s accounts carry on in the same feed. Removals are kept EVENT_RETENTION_DAYS (30 by default): an older cursor answers 410 CURSOR_EXPIRED, and the copy is rebuilt from no cursor.',
  })
  @ApiAnswer(200, TransactionChangesOutput)
  @ApiInvalid('VALIDATION_FAILED: a bad limit or accountId, or a cursor not from this user’s feed')
  @ApiMissing()
  @ApiGoneResponse({
    type: ApiErrorResponse,
    description: 'CURSOR_EXPIRED: the cursor is older than the removals kept; read again without a cursor',
  })
  async list(
    @IdParam('userId') userId: string,
    @Query() query: ListTransactionChangesInput,
    @Tenant() caller: TenantCaller,
  ) {
    const page = await this.changes.page(caller, userId, {
      after: positionOf(query.cursor, userId),
      limit: query.limit,
      accountId: query.accountId,
    });
    return envelope({
      added: page.added,
      modified: page.modified,
      removed: page.removed,
      nextCursor: cursorOf(userId, page.next),
      hasMore: page.hasMore,
    });
  }
}
