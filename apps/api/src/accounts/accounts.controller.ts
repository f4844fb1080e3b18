import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService } from '#libs/domain/accounts';
import { ApiEnvelope, Auth, AuthKind, Principal, TracingId, envelope } from '#libs/http';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { callerOf } from '../common/caller.js';
import { ListQueryDto } from '../common/list-query.dto.js';
import { decodeCursor, pageEnvelope } from '../common/paging.js';
import { AccountDto } from './accounts.dto.js';

@ApiTags('accounts')
@Auth(AuthKind.Merchant, AuthKind.UserSession)
@Controller('v1')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get('users/:userId/accounts')
  @ApiOperation({
    summary: "A user's accounts",
    description:
      'From the local store (never the bank), with balances and sync state; oldest first, paged by an opaque cursor.',
  })
  @ApiOkResponse({ type: ApiEnvelope(AccountDto, { list: true }) })
  @ApiInvalid()
  @ApiMissing()
  async list(
    @Param('userId') userId: string,
    @Query() query: ListQueryDto,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    const limit = query.limit ?? 50;
    const { accounts, nextAfterId } = await this.accounts.listForUser(
      callerOf(principal),
      userId,
      limit,
      decodeCursor(query.cursor),
    );
    return pageEnvelope(tracingId, accounts, {
      path: `/v1/users/${encodeURIComponent(userId)}/accounts`,
      limit,
      after: nextAfterId,
    });
  }

  @Get('accounts/:accountId')
  @ApiOperation({
    summary: 'One account',
    description: 'From the local store, with balances and sync state.',
  })
  @ApiOkResponse({ type: ApiEnvelope(AccountDto) })
  @ApiMissing()
  async get(
    @Param('accountId') accountId: string,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    return envelope(tracingId, await this.accounts.get(callerOf(principal), accountId));
  }
}
