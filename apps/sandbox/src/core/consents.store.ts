import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  type ConsentKind,
  type ConsentRecord,
  consentView,
  MAX_DATA_CONSENT_MS,
  PAYMENT_CONSENT_WINDOW_MS,
  recordFromClaims,
  UNLIMITED_MS,
} from './consent-record.js';
import { ConsentTokenCodec } from './consent-token.js';
import { ResetRegistryService } from './reset-registry.service.js';
import type { SandboxContext } from './sandbox-auth.guard.js';
import { SandboxClockService } from './sandbox-clock.service.js';
import { SandboxError } from './sandbox-error.js';
import { SandboxEvents } from './sandbox-events.js';
import { UsersStore } from './users.store.js';

const ANNOUNCED_STATUSES: Record<string, string> = {
  AUTHORIZED: 'consent.state.authorized',
  REVOKED: 'consent.state.revoked',
  EXPIRED: 'consent.state.expired',
};

const consentMissing = () =>
  new SandboxError(400, 'The consent header is mandatory for this operation', [
    {
      type: 'INVALID_REQUEST',
      code: 'CONSENT_MISSING',
      parameter: 'consent',
      message: 'Missing consent header',
    },
  ]);

/** An authorised consent as it is; any other status refused as the upstream refuses it. */
function usable(record: ConsentRecord): ConsentRecord {
  switch (record.status) {
    case 'AUTHORIZED':
      return record;
    case 'EXPIRED':
      throw SandboxError.consent(403, 'CONSENT_EXPIRED', `Consent ${record.id} has expired; re-authorise it`);
    case 'REVOKED':
      throw SandboxError.consent(403, 'CONSENT_REVOKED', `Consent ${record.id} has been revoked`);
    case 'CONSUMED':
      throw SandboxError.consent(
        403,
        'CONSENT_CONSUMED',
        `Payment consent ${record.id} has already been used`,
      );
    default:
      throw SandboxError.consent(403, 'CONSENT_NOT_AUTHORIZED', `Consent ${record.id} is ${record.status}`);
  }
}

/**
 * All consents of every kind. The flows (account, embedded, payment, VRP) live in their modules and go
 * through this store, so token handling, expiry and revocation are one piece of code.
 */
@Injectable()
export class ConsentsStore {
  private consents = new Map<string, ConsentRecord>();
  private readonly codec: ConsentTokenCodec;
  /** Identifies this process's tokens: a token of ours whose consent is gone was deleted, not forgotten. */
  private readonly bootId = randomUUID();

  /** The last status each consent was announced in, so every transition is announced once. */
  private announced = new Map<string, string>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: SandboxClockService,
    private readonly users: UsersStore,
    private readonly events: SandboxEvents,
    resets: ResetRegistryService,
  ) {
    this.codec = new ConsentTokenCodec(config.sandbox.adminToken);
    resets.registerMaps(
      'consents',
      () => ({ consents: this.consents, announced: this.announced }),
      (maps) => {
        ({ consents: this.consents, announced: this.announced } = maps);
      },
    );
  }

  create(
    input: Omit<ConsentRecord, 'id' | 'createdAt' | 'institutionConsentId'> & { id?: string },
  ): ConsentRecord {
    const record: ConsentRecord = {
      ...input,
      id: input.id ?? randomUUID(),
      createdAt: this.clock.now().toISOString(),
      institutionConsentId: `sbx-${randomUUID().slice(0, 18)}`,
    };
    this.consents.set(record.id, record);
    return record;
  }

  /** The application's consent; another application's is "not found". Expiry is applied on read. */
  get(applicationId: string, id: string): ConsentRecord | undefined {
    const record = this.consents.get(id);
    if (!record || record.applicationId !== applicationId) return undefined;
    return this.applyExpiry(record);
  }

  /** Any application's consent: for the control API only. */
  findAny(id: string): ConsentRecord | undefined {
    return this.consents.get(id);
  }

  mustGet(applicationId: string, id: string): ConsentRecord {
    const record = this.get(applicationId, id);
    if (!record) throw SandboxError.notFound(`Consent ${id} was not found`);
    return record;
  }

  list(applicationId: string): ConsentRecord[] {
    return [...this.consents.values()]
      .filter((c) => c.applicationId === applicationId)
      .map((c) => this.applyExpiry(c));
  }

  update(record: ConsentRecord): ConsentRecord {
    this.consents.set(record.id, record);
    this.announce(record);
    return record;
  }

  /** Webhook categories consent.state.authorized / revoked / expired, whichever module changed the status. */
  private announce(record: ConsentRecord): void {
    const type = ANNOUNCED_STATUSES[record.status];
    if (!type || this.announced.get(record.id) === record.status) return;
    this.announced.set(record.id, record.status);
    this.events.emit({
      applicationId: record.applicationId,
      type,
      data: {
        consentId: record.id,
        status: record.status,
        kind: record.kind,
        institutionId: record.institutionId,
        userUuid: record.userUuid,
        applicationUserId: record.applicationUserId,
        at: this.clock.now().toISOString(),
      },
    });
  }

  delete(id: string): void {
    this.consents.delete(id);
  }

  /**
   * Marks the consent authorised and issues its token. Expiry by kind: a data consent at the requested
   * time, never later than 90 days from now; a single-payment consent after a 24-hour window to make
   * the payment; a VRP mandate at its `controlParameters.validTo` (or the requested expiry), else never.
   */
  authorize(record: ConsentRecord): ConsentRecord {
    const now = this.clock.nowMs();
    const requested = record.expiresAt ? Date.parse(record.expiresAt) : undefined;
    let expiresAt: Date | undefined;
    if (record.kind === 'ACCOUNT') {
      const limit = now + MAX_DATA_CONSENT_MS;
      expiresAt = new Date(requested && requested < limit ? requested : limit);
    } else if (record.kind === 'PAYMENT') {
      const limit = now + PAYMENT_CONSENT_WINDOW_MS;
      expiresAt = new Date(requested && requested < limit ? requested : limit);
    } else {
      const validTo = (record.details?.controlParameters as { validTo?: string } | undefined)?.validTo;
      const end = validTo ? Date.parse(validTo) : requested;
      expiresAt = end && !Number.isNaN(end) ? new Date(end) : undefined;
    }
    record.generation = record.consentToken ? (record.generation ?? 0) + 1 : 0;
    record.status = 'AUTHORIZED';
    record.authorizedAt = new Date(now).toISOString();
    record.expiresAt = expiresAt?.toISOString();
    record.consentToken = this.codec.sign({
      sub: record.id,
      uid: record.userUuid,
      aui: record.applicationUserId,
      app: record.applicationId,
      ins: record.institutionId,
      knd: record.kind,
      scp: record.featureScope,
      iat: Math.floor(now / 1000),
      exp: Math.floor((expiresAt?.getTime() ?? now + UNLIMITED_MS) / 1000),
      tf: record.transactionFrom,
      tt: record.transactionTo,
      det: record.kind === 'ACCOUNT' ? undefined : record.details,
      gen: record.generation,
      jti: randomUUID(),
      bid: this.bootId,
    });
    return this.update(record);
  }

  /**
   * The consent behind a `consent` header, checked: signed by this sandbox, for the calling application,
   * of the wanted kind, authorised and not expired, revoked or consumed. A token from before a restart
   * re-creates its consent from its claims.
   */
  fromToken(
    ctx: SandboxContext,
    token: string | undefined,
    kinds: ConsentKind[] = ['ACCOUNT'],
    options: {
      /** Statuses besides AUTHORIZED that the operation accepts (re-authorisation takes expired ones). */
      alsoAccept?: readonly string[];
    } = {},
  ): ConsentRecord {
    if (!token) throw consentMissing();
    const claims = this.codec.verify(token);
    if (!claims || claims.app !== ctx.application.id) {
      throw SandboxError.consent(
        401,
        'CONSENT_INVALID',
        'The consent token is not valid for this application',
      );
    }
    let record = this.consents.get(claims.sub);
    if (!record && claims.bid === this.bootId) {
      throw SandboxError.consent(401, 'CONSENT_INVALID', 'The consent of this token has been deleted');
    }
    // After a restart the first token to arrive re-creates the consent; a newer generation (a later
    // re-authorisation, also from before the restart) then replaces it, so the current token always wins.
    const newer = record && claims.bid !== this.bootId && claims.gen > (record.generation ?? 0);
    if (!record || newer) {
      // Re-creating what the token already says is no news: it was announced before the restart.
      this.announced.set(claims.sub, 'AUTHORIZED');
      this.users.restore({
        uuid: claims.uid,
        applicationUuid: claims.app,
        applicationUserId: claims.aui,
        createdAt: new Date(claims.iat * 1000).toISOString(),
      });
      record = this.update(recordFromClaims(claims, token));
    }
    record = this.applyExpiry(record);
    if (record.consentToken !== token) {
      // A re-authorisation issued a new token; the old one no longer opens anything.
      throw SandboxError.consent(401, 'CONSENT_INVALID', 'The consent token has been superseded');
    }
    if (!kinds.includes(record.kind)) {
      throw SandboxError.consent(
        403,
        'CONSENT_WRONG_TYPE',
        `This operation needs a ${kinds.join(' or ')} consent`,
      );
    }
    if (options.alsoAccept?.includes(record.status)) return record;
    return usable(record);
  }

  /** The wire form as of the sandbox clock, which tests move on. */
  view(record: ConsentRecord, apiVersion: '1' | '2.0-ALPHA' = '1') {
    return consentView(record, this.clock.nowMs(), apiVersion);
  }

  private applyExpiry(record: ConsentRecord): ConsentRecord {
    if (
      record.expiresAt &&
      (record.status === 'AUTHORIZED' || record.status.startsWith('AWAITING')) &&
      Date.parse(record.expiresAt) <= this.clock.nowMs()
    ) {
      record.status = 'EXPIRED';
      this.announce(record);
    }
    return record;
  }
}
