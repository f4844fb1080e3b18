import { Injectable } from '@nestjs/common';
import { AccountsService } from '#libs/domain/accounts';
import { ConsentsService } from '#libs/domain/consents';
import { SyncService, TracingLookupService } from '#libs/domain/sync';
import { UsersService } from '#libs/domain/users';
import { envelope } from '#libs/http';
import { checkedId } from '../common/id-param.js';
import { LookupInput } from '../common/inputs/lookup.input.js';
import { syncRunsPage, userAccountsPage } from '../common/pages/account-pages.js';
import { consentHistoryPage, userConsentsPage } from '../common/pages/consent-pages.js';
import {
  AccountListInput,
  ConsentInput,
  ConsentListInput,
  FindCustomerInput,
  SyncRunInput,
  UserInput,
  UserListInput,
} from './inputs/tool-arguments.input.js';
import { type Tool, tool } from './mcp-tool-kit.js';

/**
 * The MCP tools over a merchant's customers and their connections: the customer, their consents and
 * accounts, the accounts' sync runs, and what an id names (their REST routes' reads).
 */
@Injectable()
export class McpCustomerToolsService {
  constructor(
    private readonly users: UsersService,
    private readonly consents: ConsentsService,
    private readonly accounts: AccountsService,
    private readonly sync: SyncService,
    private readonly lookups: TracingLookupService,
  ) {}

  tools(): Tool[] {
    return [...this.customerTools(), ...this.consentTools(), ...this.syncTools()];
  }

  private customerTools(): Tool[] {
    return [
      tool({
        name: 'find_customer',
        // GET /v1/users?reference= answers one user: the same envelope as this route's.
        route: 'GET /v1/users/{userId}',
        description: 'The customer (user) with your reference for them, as GET /v1/users?reference= answers.',
        input: FindCustomerInput,
        read: async (caller, { reference }) => envelope(await this.users.findByReference(caller, reference)),
      }),
      tool({
        name: 'get_customer',
        route: 'GET /v1/users/{userId}',
        description: 'One customer by id, as GET /v1/users/{userId}.',
        input: UserInput,
        read: async (caller, args) =>
          envelope(await this.users.get(caller, checkedId('userId', args.userId))),
      }),
    ];
  }

  private consentTools(): Tool[] {
    return [
      tool({
        name: 'list_consents',
        route: 'GET /v1/users/{userId}/consents',
        description:
          "A customer's consents (bank connections), newest first, as GET /v1/users/{userId}/consents.",
        input: UserListInput,
        read: (caller, args) =>
          userConsentsPage(this.consents, caller, checkedId('userId', args.userId), args),
      }),
      tool({
        name: 'get_consent',
        route: 'GET /v1/consents/{consentId}',
        description:
          'One consent: status, scope and dates (never its token), as GET /v1/consents/{consentId}.',
        input: ConsentInput,
        read: async (caller, args) =>
          envelope(await this.consents.get(caller, checkedId('consentId', args.consentId))),
      }),
      tool({
        name: 'consent_history',
        route: 'GET /v1/consents/{consentId}/history',
        description: "A consent's status changes, oldest first, as GET /v1/consents/{consentId}/history.",
        input: ConsentListInput,
        read: (caller, args) =>
          consentHistoryPage(this.consents, caller, checkedId('consentId', args.consentId), args),
      }),
    ];
  }

  private syncTools(): Tool[] {
    return [
      tool({
        name: 'list_accounts',
        route: 'GET /v1/users/{userId}/accounts',
        description:
          "A customer's accounts with their sync freshness (status, lastSyncedAt, lastError, failingSince; unattendedReads: the bank's daily allowance of reads without the customer, used, remaining and when it resets; dailyLimitUntil while the bank itself refuses), as GET /v1/users/{userId}/accounts.",
        input: UserListInput,
        read: (caller, args) =>
          userAccountsPage(this.accounts, caller, checkedId('userId', args.userId), args),
      }),
      tool({
        name: 'list_sync_runs',
        route: 'GET /v1/accounts/{accountId}/syncs',
        description:
          "An account's sync runs, newest first, each with its error (code, message and the upstream's tracingId to quote to the bank), as GET /v1/accounts/{accountId}/syncs.",
        input: AccountListInput,
        read: (caller, args) => syncRunsPage(this.sync, caller, checkedId('accountId', args.accountId), args),
      }),
      tool({
        name: 'get_sync_run',
        route: 'GET /v1/syncs/{syncId}',
        description: 'One sync run: status, window, progress, attempts and error, as GET /v1/syncs/{syncId}.',
        input: SyncRunInput,
        read: async (caller, args) =>
          envelope(await this.sync.getRun(caller, checkedId('syncId', args.syncId))),
      }),
      tool({
        name: 'look_up',
        route: 'GET /v1/lookup',
        description:
          "What an id names: a tracing id (ours or the upstream's), a customer's reference, or the id of a sync run, payment, event or delivery; as GET /v1/lookup?id=.",
        input: LookupInput,
        read: async (caller, { id }) => envelope(await this.lookups.lookUp(caller, id)),
      }),
    ];
  }
}
