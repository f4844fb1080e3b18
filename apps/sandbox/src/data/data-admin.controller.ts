import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApplicationRegistryService,
  type ConsentRecord,
  ConsentsStore,
  fromMinor,
  InstitutionsCatalog,
  SandboxAccess,
  SandboxError,
  UsersStore,
} from '../core/index.js';
import { AddTransactionDto, ChangeTransactionDto, CreateDataConsentDto } from './financial-data.dto.js';
import { FinancialDataStore } from './financial-data.store.js';
import { UnattendedReadsService } from './unattended-reads.service.js';
import { transactionWire, WITH_CATEGORISATION, WITH_MERCHANT } from './wire-format.js';

/** The data features a consent made here covers unless the request names its own scope. */
const DEFAULT_SCOPE = [
  'ACCOUNTS',
  'ACCOUNT',
  'ACCOUNT_BALANCES',
  'ACCOUNT_TRANSACTIONS',
  'ACCOUNT_STATEMENTS',
  'ACCOUNT_STATEMENT',
  'ACCOUNT_BENEFICIARIES',
];

/**
 * Control API for financial data: authorised data consents without the bank page (for automated tests),
 * and changes to a consent's account transactions. Changes live in memory: a reset or restart drops them.
 */
@SandboxAccess('admin')
@Controller('sandbox/admin/consents')
export class DataAdminController {
  constructor(
    private readonly applications: ApplicationRegistryService,
    private readonly users: UsersStore,
    private readonly consents: ConsentsStore,
    private readonly institutions: InstitutionsCatalog,
    private readonly store: FinancialDataStore,
    private readonly unattended: UnattendedReadsService,
  ) {}

  /** An AUTHORIZED ACCOUNT consent, created directly (the PSU's bank page is skipped). */
  @Post()
  create(@Body() body: CreateDataConsentDto) {
    const applicationId = body.applicationId ?? this.applications.root.id;
    if (!this.applications.get(applicationId)) {
      throw SandboxError.invalidProperty('applicationId', `Unknown application ${applicationId}`);
    }
    if (!body.applicationUserId && !body.userUuid) {
      throw SandboxError.mandatoryFields(['applicationUserId']);
    }
    this.institutions.get(body.institutionId);
    const user = this.users.resolve(applicationId, {
      userUuid: body.userUuid,
      applicationUserId: body.applicationUserId,
    });
    if (!user) throw SandboxError.invalidProperty('userUuid', `Unknown user ${body.userUuid}`);
    if (body.transactionFrom && body.transactionTo && body.transactionFrom > body.transactionTo) {
      throw SandboxError.invalidProperty('transactionTo', 'transactionTo must not be before transactionFrom');
    }
    const record = this.consents.create({
      kind: 'ACCOUNT',
      applicationId,
      userUuid: user.uuid,
      applicationUserId: user.applicationUserId,
      dataKey: user.dataKey,
      institutionId: body.institutionId,
      status: 'AWAITING_AUTHORIZATION',
      featureScope: body.featureScope ?? DEFAULT_SCOPE,
      transactionFrom: body.transactionFrom ? new Date(body.transactionFrom).toISOString() : undefined,
      transactionTo: body.transactionTo ? new Date(body.transactionTo).toISOString() : undefined,
      expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : undefined,
      oneTimeToken: false,
    });
    const authorised = this.consents.authorize(record);
    // The accounts' ids too, so a test or a benchmark can read transactions without listing accounts.
    const accounts = this.store.accountsFor(authorised).map((a) => ({ id: a.id, accountType: a.kind }));
    return { data: { ...this.consents.view(authorised), accounts } };
  }

  @Get(':consentId/accounts')
  accounts(@Param('consentId') consentId: string) {
    const consent = this.consent(consentId);
    return {
      data: this.store.accountsFor(consent).map((a) => {
        const totals = a.ledger.totals();
        const isoOf = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
        return {
          id: a.id,
          accountType: a.kind,
          description: a.description,
          currency: a.currency,
          transactionCount: totals.count,
          bookedBalance: fromMinor(totals.bookedMinor, a.currency),
          pendingTotal: fromMinor(totals.pendingMinor, a.currency),
          oldestTransaction: isoOf(totals.oldestMs),
          newestTransaction: isoOf(totals.newestMs),
          // The bank's own count of today's reads without the user, against its allowance.
          unattendedReads: this.unattended.of(a.id, consent.institutionId),
        };
      }),
    };
  }

  @Post(':consentId/accounts/:accountId/transactions')
  add(
    @Param('consentId') consentId: string,
    @Param('accountId') accountId: string,
    @Body() body: AddTransactionDto,
  ) {
    const consent = this.consent(consentId);
    const tx = this.store.addTransaction(consent, accountId, body);
    return { data: this.view(consent, accountId, tx.id) };
  }

  /** Change amount, description, reference or date; PENDING → BOOKED issues a new id (or the one given). */
  @Patch(':consentId/accounts/:accountId/transactions/:transactionId')
  change(
    @Param('consentId') consentId: string,
    @Param('accountId') accountId: string,
    @Param('transactionId') transactionId: string,
    @Body() body: ChangeTransactionDto,
  ) {
    const consent = this.consent(consentId);
    const { transaction, previousId } = this.store.changeTransaction(consent, accountId, transactionId, body);
    return { data: { ...this.view(consent, accountId, transaction.id), previousId } };
  }

  @Delete(':consentId/accounts/:accountId/transactions/:transactionId')
  @HttpCode(204)
  remove(
    @Param('consentId') consentId: string,
    @Param('accountId') accountId: string,
    @Param('transactionId') transactionId: string,
  ): void {
    this.store.deleteTransaction(this.consent(consentId), accountId, transactionId);
  }

  private consent(consentId: string): ConsentRecord {
    const consent = this.consents.findAny(consentId);
    if (!consent || consent.kind !== 'ACCOUNT')
      throw SandboxError.notFound(`Data consent ${consentId} was not found`);
    return consent;
  }

  private view(consent: ConsentRecord, accountId: string, transactionId: string) {
    const account = this.store.account(consent, accountId);
    const tx = this.store.transaction(account, transactionId);
    return transactionWire(tx, account, consent.institutionId, WITH_CATEGORISATION | WITH_MERCHANT);
  }
}
