import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import { IsIn } from 'class-validator';
import type { FastifyReply } from 'fastify';
import {
  ApplicationRegistryService,
  type ConsentRecord,
  ConsentsStore,
  InstitutionsCatalog,
  SandboxAccess,
  SandboxError,
} from '../../core/index.js';
import { ConsentFlowsService } from '../consent-flows.service.js';
import { validateAs } from '../manual-validation.js';
import { consentPage, messagePage } from './bank-page.html.js';

class BankDecisionDto {
  @IsIn(['approve', 'deny']) decision: 'approve' | 'deny';
}

/** Statuses in which the PSU can still decide on the bank page. */
const DECIDABLE = ['AWAITING_AUTHORIZATION', 'AWAITING_RE_AUTHORIZATION', 'AWAITING_FURTHER_AUTHORIZATION'];

const HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/**
 * The hosted "bank" where the PSU approves or denies a consent of any kind (the authorisationUrl of every
 * redirect flow). Approval authorises the consent and sends the browser to the callback with the token
 * (or a one-time token); without a callback the page shows the outcome.
 */
@SandboxAccess('public')
@Controller('sandbox/bank/consents')
export class BankPageController {
  constructor(
    private readonly consents: ConsentsStore,
    private readonly flows: ConsentFlowsService,
    private readonly catalog: InstitutionsCatalog,
    private readonly applications: ApplicationRegistryService,
  ) {}

  @Get(':consentId')
  show(@Param('consentId') id: string, @Res() reply: FastifyReply) {
    const record = this.decidable(id, reply);
    if (!record) return;
    this.html(
      reply,
      200,
      consentPage({
        record,
        institutionName: this.catalog.find(record.institutionId)?.name ?? record.institutionId,
        applicationName: this.applications.get(record.applicationId)?.name ?? 'An application',
        action: `/sandbox/bank/consents/${encodeURIComponent(record.id)}`,
      }),
    );
  }

  @Post(':consentId')
  decide(@Param('consentId') id: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    let decision: BankDecisionDto['decision'];
    try {
      decision = validateAs(BankDecisionDto, body ?? {}).decision;
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      this.html(reply, 400, messagePage('Bad request', 'The form needs decision=approve or decision=deny.'));
      return;
    }
    const record = this.decidable(id, reply);
    if (!record) return;
    if (decision === 'approve') this.approve(record, reply);
    else this.deny(record, reply);
  }

  private approve(record: ConsentRecord, reply: FastifyReply): void {
    const authorised = this.flows.authorize(record);
    const page = messagePage(
      'Approved',
      'You approved the request. You can close this window and return to the app.',
    );
    this.conclude(reply, authorised, page, () => [
      authorised.oneTimeToken
        ? ['oneTimeToken', this.flows.issueOneTimeToken(authorised)]
        : ['consent', authorised.consentToken!],
    ]);
  }

  private deny(record: ConsentRecord, reply: FastifyReply): void {
    record.status = 'REJECTED';
    this.consents.update(record);
    const page = messagePage(
      'Denied',
      'You denied the request. You can close this window and return to the app.',
    );
    this.conclude(reply, record, page, () => [
      ['error', 'access_denied'],
      ['error_description', 'The account holder denied the authorisation'],
    ]);
  }

  /**
   * The decision goes to the callback with its outcome, asked for only then (approval issues a one-time
   * token for it); without a callback the page tells the PSU.
   */
  private conclude(
    reply: FastifyReply,
    record: ConsentRecord,
    page: string,
    outcome: () => [string, string][],
  ): void {
    if (record.callback) this.redirect(reply, record, outcome());
    else this.html(reply, 200, page);
  }

  /** The callback gets the outcome, then the consent's identifiers, then the forwarded parameters. */
  private redirect(reply: FastifyReply, record: ConsentRecord, outcome: [string, string][]): void {
    const url = new URL(record.callback!);
    const params: [string, string | undefined][] = [
      ...outcome,
      ['state', record.state],
      ['consentId', record.id],
      ['application-user-id', record.applicationUserId],
      ['user-uuid', record.userUuid],
      ['institution', record.institutionId],
    ];
    for (const [name, value] of params) if (value !== undefined) url.searchParams.append(name, value);
    // forwardParameters are strings; `name=value` ones come back as query parameters.
    for (const entry of record.forwardParameters ?? []) {
      if (typeof entry !== 'string') continue;
      const at = entry.indexOf('=');
      if (at > 0) url.searchParams.append(entry.slice(0, at), entry.slice(at + 1));
    }
    void reply.status(302).headers(HEADERS).header('location', url.toString()).send();
  }

  /** The consent, if the PSU can decide on it now; otherwise answers the error page and returns nothing. */
  private decidable(id: string, reply: FastifyReply): ConsentRecord | undefined {
    const found = this.consents.findAny(id);
    // Read through the owner's view so that expiry is applied.
    const record = found && this.flows.find(found.applicationId, found.id);
    if (!record) {
      this.html(reply, 404, messagePage('Not found', 'There is no authorisation request with this id.'));
      return undefined;
    }
    if (!DECIDABLE.includes(record.status) || record.scaMethods) {
      this.html(
        reply,
        409,
        messagePage(
          'Nothing to decide',
          `This request is ${record.status}: it is not awaiting your authorisation.`,
        ),
      );
      return undefined;
    }
    return record;
  }

  private html(reply: FastifyReply, status: number, body: string): void {
    void reply.status(status).headers(HEADERS).type('text/html; charset=utf-8').send(body);
  }
}
