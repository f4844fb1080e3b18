import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Caller, MerchantCaller, OperatorCaller } from '#libs/context';
import { apiKeyPrefix, SignedTokenCodec } from '#libs/crypto';
import { sameSecret } from './auth.strategies.js';
import { MerchantKeyVerifier, refused } from './merchant-key.verifier.js';
import { PrincipalCache } from './principal-cache.js';

/** The console's cookie: a signed console-session token, never a credential itself. */
export const CONSOLE_COOKIE = 'bff_console';
/** A console session lasts at most a working day; a key that expires sooner ends it sooner. */
export const CONSOLE_SESSION_SECONDS = 8 * 60 * 60;

type Claims =
  | { kind: 'merchant'; prefix: string; apiKeyId: string; exp: number }
  | { kind: 'operator'; tokenHash: string; exp: number };

export interface ConsoleSession {
  token: string;
  caller: MerchantCaller | OperatorCaller;
  expiresAt: Date;
}

/**
 * The operator's session carries a fingerprint of the operator token it was made from, so changing
 * ADMIN_TOKEN ends every operator session. It is keyed by the signing secret: a cookie's readable payload
 * must not let whoever holds it test guesses of the token offline, as a plain hash would.
 */
const operatorTokenHash = (adminToken: string, signingSecret: string) =>
  createHmac('sha256', signingSecret).update(`bff.console-operator.${adminToken}`).digest('base64url');

function claimsOf(payload: unknown): Claims | null {
  if (payload === null || typeof payload !== 'object') return null;
  const p = payload as Record<string, unknown>;
  if (typeof p.exp !== 'number') return null;
  if (p.kind === 'merchant' && typeof p.prefix === 'string' && typeof p.apiKeyId === 'string')
    return { kind: 'merchant', prefix: p.prefix, apiKeyId: p.apiKeyId, exp: p.exp };
  if (p.kind === 'operator' && typeof p.tokenHash === 'string')
    return { kind: 'operator', tokenHash: p.tokenHash, exp: p.exp };
  return null;
}

/**
 * Console sessions (docs/console.md): a sign-in exchanges an API key or the operator token for a signed
 * token naming that credential (an API key's public prefix and id, not the key), kept in an HttpOnly
 * cookie. Each request re-checks the credential through the same checks as a bearer credential.
 */
@Injectable()
export class ConsoleSessionService {
  private readonly codec: SignedTokenCodec;
  /** The operator token's fingerprint: the configuration is fixed for the process's life. */
  private readonly operatorFingerprint: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: MerchantKeyVerifier,
    private readonly cache: PrincipalCache,
  ) {
    this.codec = new SignedTokenCodec(config.crypto.signingSecret, 'bff.console-session.v1');
    this.operatorFingerprint = operatorTokenHash(config.api.adminToken, config.crypto.signingSecret);
  }

  async signIn(input: { apiKey?: string; operatorToken?: string }): Promise<ConsoleSession> {
    const now = Date.now();
    const until = now + CONSOLE_SESSION_SECONDS * 1000;
    if (input.operatorToken !== undefined) {
      if (!sameSecret(input.operatorToken, this.config.api.adminToken)) throw refused();
      const exp = Math.floor(until / 1000);
      const token = this.codec.sign({
        kind: 'operator',
        tokenHash: this.operatorFingerprint,
        exp,
      } satisfies Claims);
      return { token, caller: { kind: 'operator' }, expiresAt: new Date(exp * 1000) };
    }
    const { principal, validUntil } = await this.keys.verifyKey(input.apiKey ?? '');
    const exp = Math.floor(Math.min(until, validUntil ?? Infinity) / 1000);
    const claims: Claims = {
      kind: 'merchant',
      prefix: apiKeyPrefix(input.apiKey!),
      apiKeyId: principal.apiKeyId,
      exp,
    };
    return { token: this.codec.sign(claims), caller: principal, expiresAt: new Date(exp * 1000) };
  }

  /** The caller a console cookie acts as, or a refusal (401) like any invalid credential. */
  async resolve(token: string): Promise<Caller> {
    const claims = token.length <= 1024 ? claimsOf(this.codec.open(token)) : null;
    if (!claims || claims.exp * 1000 <= Date.now()) throw refused();
    if (claims.kind === 'operator') {
      if (!sameSecret(claims.tokenHash, this.operatorFingerprint)) throw refused();
      return { kind: 'operator' };
    }
    // Cached like the key itself, and evicted by the same revocations (key, merchant) at once.
    return this.cache.resolve(token, async () => {
      const verified = await this.keys.verifyKeyId(claims.prefix, claims.apiKeyId);
      const validUntil = Math.min(claims.exp * 1000, verified.validUntil ?? Infinity);
      return { principal: { ...verified.principal, validUntil }, validUntil };
    });
  }
}
