import { Inject, Injectable } from '@nestjs/common';
import type { MerchantCaller, TenantCaller } from '#libs/context';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '#libs/crypto';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { CredentialRevocations } from '#libs/redis';
import { UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { MerchantRepository } from './merchant.repository.js';

export interface ApiKeyView {
  id: string;
  prefix: string;
  name: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface MerchantView {
  id: string;
  name: string;
  subApplicationId: string | null;
  subApplicationName: string | null;
  frontendOrigins: string[];
  disabledAt: string | null;
  createdAt: string;
  apiKeys: ApiKeyView[];
}

/** A key as created: the only time the plaintext `key` leaves the BFF. */
export interface CreatedApiKeyView extends ApiKeyView {
  key: string;
}

type KeyRow = {
  id: string;
  prefix: string;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function keyView(k: KeyRow): ApiKeyView {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
  };
}

function merchantView(m: {
  id: string;
  name: string;
  subApplicationId: string | null;
  subApplicationName: string | null;
  frontendOrigins: string[];
  disabledAt: Date | null;
  createdAt: Date;
  apiKeys: KeyRow[];
}): MerchantView {
  return {
    id: m.id,
    name: m.name,
    subApplicationId: m.subApplicationId,
    subApplicationName: m.subApplicationName,
    frontendOrigins: m.frontendOrigins,
    disabledAt: iso(m.disabledAt),
    createdAt: m.createdAt.toISOString(),
    apiKeys: m.apiKeys.map(keyView),
  };
}

function newKey(name?: string) {
  const key = generateApiKey();
  return { key, row: { prefix: apiKeyPrefix(key), keyHash: hashApiKey(key), ...(name ? { name } : {}) } };
}

const notFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Merchant not found.');
const mappedElsewhere = () =>
  new DomainError(ErrorCode.CONFLICT, 'Another merchant already maps to this sub-application.');
const remapRefused = () =>
  new DomainError(
    ErrorCode.CONFLICT,
    'The sub-application cannot change once the merchant has consents or payments: they live under the one it has.',
  );

/**
 * Operator work on merchants: on-boarding (with the upstream mapping checked), keys shown once, rotation.
 * Kept whole: keys are part of the merchant's view and of its on-boarding.
 */
@Injectable()
export class MerchantService {
  constructor(
    private readonly merchants: MerchantRepository,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly revocations: CredentialRevocations,
  ) {}

  async create(input: {
    name: string;
    subApplicationId?: string;
    frontendOrigins?: string[];
  }): Promise<{ merchant: MerchantView; apiKey: CreatedApiKeyView }> {
    let subApplicationName: string | undefined;
    if (input.subApplicationId !== undefined) {
      // Checked before the upstream call: a duplicate needs no upstream quota to refuse.
      if (await this.merchants.findBySubApplication(input.subApplicationId)) throw mappedElsewhere();
      subApplicationName = await this.checkSubApplication(input.subApplicationId);
    }
    const { key, row } = newKey('initial');
    // A concurrent create with the same sub-application loses on the unique index: P2002 maps to 409.
    const { merchant, apiKey } = await this.merchants.createWithKey(
      {
        name: input.name,
        ...(input.subApplicationId !== undefined
          ? { subApplicationId: input.subApplicationId, subApplicationName }
          : {}),
        frontendOrigins: [...new Set(input.frontendOrigins ?? [])],
      },
      row,
    );
    return {
      merchant: merchantView({ ...merchant, apiKeys: [apiKey] }),
      apiKey: { ...keyView(apiKey), key },
    };
  }

  async get(id: string): Promise<MerchantView> {
    const merchant = await this.merchants.findById(id);
    if (!merchant) throw notFound();
    return merchantView(merchant);
  }

  async list(
    limit: number,
    afterId?: string,
  ): Promise<{ merchants: MerchantView[]; nextAfterId: string | null }> {
    const { rows, more } = await this.merchants.list(limit, afterId);
    return { merchants: rows.map(merchantView), nextAfterId: more ? (rows.at(-1)?.id ?? null) : null };
  }

  /**
   * Changes the name, the browser origins (CORS reads them on every request, so at once everywhere) or,
   * while the merchant has no consent or payment yet, the sub-application (checked with the upstream;
   * `null` for none, the root application).
   */
  async update(
    id: string,
    input: { name?: string; frontendOrigins?: string[]; subApplicationId?: string | null },
  ): Promise<MerchantView> {
    const merchant = await this.merchants.findById(id);
    if (!merchant) throw notFound();
    const change: Parameters<MerchantRepository['update']>[1] = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.frontendOrigins !== undefined
        ? { frontendOrigins: [...new Set(input.frontendOrigins)] }
        : {}),
    };
    if (input.subApplicationId === null && merchant.subApplicationId !== null) {
      // Back to the root application: the same rule as another sub-application, nothing to ask the upstream.
      if (await this.merchants.hasConsentsOrPayments(id)) throw remapRefused();
      change.subApplicationId = null;
      change.subApplicationName = null;
    } else if (
      typeof input.subApplicationId === 'string' &&
      input.subApplicationId !== merchant.subApplicationId
    ) {
      if (await this.merchants.hasConsentsOrPayments(id)) throw remapRefused();
      const other = await this.merchants.findBySubApplication(input.subApplicationId);
      if (other) throw mappedElsewhere();
      change.subApplicationId = input.subApplicationId;
      change.subApplicationName = await this.checkSubApplication(input.subApplicationId);
    }
    // A consent made between the check and the write wins: the write is guarded by the same condition.
    if (!(await this.merchants.update(id, change))) throw remapRefused();
    return this.get(id);
  }

  /**
   * Switches the merchant off, keeping all of its data: its keys and sessions are refused
   * (MERCHANT_DISABLED) on every api process at once; scheduled syncs, event deliveries and payment
   * status checks wait until it is enabled. Disabling twice is harmless.
   */
  async disable(id: string): Promise<MerchantView> {
    if (!(await this.merchants.setDisabled(id, true))) throw notFound();
    // Every api process caches verified credentials for a few seconds: tell them all now.
    await this.revocations.publish({ kind: 'merchant', id });
    return this.get(id);
  }

  /** Switches the merchant back on: what waited (syncs, deliveries, payment checks) resumes on its schedule. */
  async enable(id: string): Promise<MerchantView> {
    if (!(await this.merchants.setDisabled(id, false))) throw notFound();
    return this.get(id);
  }

  /** A new key next to the existing ones; the old keys keep working until revoked. */
  async rotateKey(merchantId: string, name?: string): Promise<CreatedApiKeyView> {
    if (!(await this.merchants.findById(merchantId))) throw notFound();
    const { key, row } = newKey(name);
    const apiKey = await this.merchants.createApiKey(merchantId, row);
    return { ...keyView(apiKey), key };
  }

  async revokeKey(merchantId: string, keyId: string): Promise<void> {
    if (!(await this.merchants.revokeApiKey(merchantId, keyId))) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'API key not found.');
    }
    // Every api process caches verified keys for a few seconds: tell them all now.
    await this.revocations.publish({ kind: 'apiKey', id: keyId });
  }

  /** The browser origins the caller's merchant allows. */
  async frontendOriginsOf(caller: TenantCaller): Promise<string[]> {
    return (await this.merchants.frontendOriginsOf(caller.merchantId))?.frontendOrigins ?? [];
  }

  /** The merchant a key acts for, as it sees itself: the same view the operator has. */
  own(caller: MerchantCaller): Promise<MerchantView> {
    return this.get(caller.merchantId);
  }

  /** A merchant's own change: only its browser origins (the rest is the operator's). */
  updateOwn(caller: MerchantCaller, input: { frontendOrigins?: string[] }): Promise<MerchantView> {
    return this.update(caller.merchantId, { frontendOrigins: input.frontendOrigins });
  }

  rotateOwnKey(caller: MerchantCaller, name?: string): Promise<CreatedApiKeyView> {
    return this.rotateKey(caller.merchantId, name);
  }

  /** Revokes one of the merchant's own keys, the calling one included, but never its last working key. */
  async revokeOwnKey(caller: MerchantCaller, keyId: string): Promise<void> {
    const outcome = await this.merchants.revokeApiKeyKeepingOne(caller.merchantId, keyId);
    if (outcome === 'missing') throw new DomainError(ErrorCode.NOT_FOUND, 'API key not found.');
    if (outcome === 'last') {
      throw new DomainError(
        ErrorCode.CONFLICT,
        "This is the merchant's last working API key: issue another (POST /v1/merchant/api-keys) before revoking it.",
      );
    }
    await this.revocations.publish({ kind: 'apiKey', id: keyId });
  }

  private async checkSubApplication(id: string): Promise<string | undefined> {
    try {
      const { data } = await this.upstream.applications.get(id);
      return data.name;
    } catch (error) {
      if (error instanceof UpstreamError && (error.kind === 'NOT_FOUND' || error.kind === 'CALLER')) {
        throw new DomainError(
          ErrorCode.VALIDATION_FAILED,
          'The upstream does not know this sub-application.',
          {
            details: [
              { field: 'subApplicationId', issue: 'is not a sub-application of the upstream application' },
            ],
          },
        );
      }
      throw mapUpstreamFailure(error);
    }
  }
}
