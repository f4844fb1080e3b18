import { Get, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { AccountsService } from '#libs/domain/accounts';
import { ApiAnswer, envelope, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { ListInput } from '../common/inputs/list.input.js';
import { KeptAnswer } from '../common/kept-answer.hook.js';
import { userAccountsPage } from '../common/pages/account-pages.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { AccountOutput } from './outputs/account.output.js';

@SessionReachableController('accounts', 'v1')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get('users/:userId/accounts')
  @KeptAnswer()
  @ApiOperation({
    summary: "A user's accounts",
    description:
      'From the local store (never the bank), with balances and sync state; oldest first, paged by an opaque cursor.',
  })
  @ApiAnswer(200, AccountOutput, { list: true })
  @ApiInvalid()
  @ApiMissing()
  async list(@IdParam('userId') userId: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    return userAccountsPage(this.accounts, caller, userId, query);
  }

  @Get('accounts/:accountId')
  @KeptAnswer()
  @ApiOperation({
    summary: 'One account',
    description: 'From the local store, with balances and sync state.',
  })
  @ApiAnswer(200, AccountOutput)
  @ApiMissing()
  async get(@IdParam('accountId') accountId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.accounts.get(caller, accountId));
  }
}
