import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Caller, MerchantCaller, OperatorCaller } from '#libs/context';
import { apiKeyPrefix, SignedTokenCodec } from '#libs/crypto';
import { ConsoleSessionRepository } from '#libs/domain/merchants';
import { uuidV7 } from '#libs/ids';
import { CredentialRevocations } from '#libs/redis';
import { sameSecret } from './auth.strategies.js';
import { MerchantKeyVerifier, refused } from './merchant-key.verifier.js';
import { PrincipalCache } from './principal-cache.js';

/** The console's cookie: a signed console-session token, never a credential itself. */
export const CONSOLE_COOKIE = 'bff_console';
/** A console session lasts at most a working day; a key that expires sooner ends it sooner. */
export const CONSOLE_SESSION_SECONDS = 8 * 60 * 60;

type Claims =
  | { kind: 'merchant'; sid: string; prefix: string; apiKeyId: string; exp: number }
  | { kind: 'operator'; sid: string; tokenHash: string; exp: number };

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
  if (typeof p.exp !== 'number' || typeof p.sid !== 'string') return null;
  if (p.kind === 'merchant' && typeof p.prefix === 'string' && typeof p.apiKeyId === 'string')
    return { kind: 'merchant', sid: p.sid, prefix: p.prefix, apiKeyId: p.apiKeyId, exp: p.exp };
  if (p.kind === 'operator' && typeof p.tokenHash === 'string')
    return { kind: 'operator', sid: p.sid, tokenHash: p.tokenHash, exp: p.exp };
  return null;
}

/**
 * Console sessions (docs/console.md): a sign-in exchanges an API key or the operator token for a signed
 * token naming that credential (an API key's public prefix and id, not the key) and a stored session,
 * kept in an HttpOnly cookie. Each request re-checks the credential through the same checks as a bearer
 * credential, and the session's row: a sign-out ends it for every copy of the cookie, on every process
 * (the revocation evicts the cached check and ends the session's event streams).
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
    private readonly stored: ConsoleSessionRepository,
    private readonly revocations: CredentialRevocations,
  ) {
    // v2: cookies name a stored session; a v1 cookie (none did) no longer opens.
    this.codec = new SignedTokenCodec(config.crypto.signingSecret, 'bff.console-session.v2');
    this.operatorFingerprint = operatorTokenHash(config.api.adminToken, config.crypto.signingSecret);
  }

  async signIn(input: { apiKey?: string; operatorToken?: string }): Promise<ConsoleSession> {
    const now = Date.now();
    const until = now + CONSOLE_SESSION_SECONDS * 1000;
    const sid = uuidV7(now);
    if (input.operatorToken !== undefined) {
      if (!sameSecret(input.operatorToken, this.config.api.adminToken)) throw refused();
      const exp = Math.floor(until / 1000);
      await this.stored.start({ id: sid, apiKeyId: null, expiresAt: new Date(exp * 1000) });
      const token = this.codec.sign({
        kind: 'operator',
        sid,
        tokenHash: this.operatorFingerprint,
        exp,
      } satisfies Claims);
      return { token, caller: { kind: 'operator' }, expiresAt: new Date(exp * 1000) };
    }
    const { principal, validUntil } = await this.keys.verifyKey(input.apiKey ?? '');
    const exp = Math.floor(Math.min(until, validUntil ?? Infinity) / 1000);
    await this.stored.start({ id: sid, apiKeyId: principal.apiKeyId, expiresAt: new Date(exp * 1000) });
    const claims: Claims = {
      kind: 'merchant',
      sid,
      prefix: apiKeyPrefix(input.apiKey!),
      apiKeyId: principal.apiKeyId,
      exp,
    };
    return { token: this.codec.sign(claims), caller: principal, expiresAt: new Date(exp * 1000) };
  }

  /**
   * Ends the session a cookie names, wherever a copy of the cookie is: stored as ended, then told to every
   * process (cached checks evicted, streams read again and ended). A cookie that opens no session (none,
   * forged, already expired) ends nothing: signing out is harmless either way.
   */
  async signOut(token: string | undefined): Promise<void> {
    const claims = token && token.length <= 1024 ? claimsOf(this.codec.open(token)) : null;
    if (!claims) return;
    await this.stored.end(claims.sid);
    await this.revocations.publish({ kind: 'consoleSession', id: claims.sid });
  }

  /** The caller a console cookie acts as, or a refusal (401) like any invalid credential. */
  async resolve(token: string): Promise<Caller> {
    const claims = token.length <= 1024 ? claimsOf(this.codec.open(token)) : null;
    if (!claims || claims.exp * 1000 <= Date.now()) throw refused();
    if (claims.kind === 'operator') {
      if (!sameSecret(claims.tokenHash, this.operatorFingerprint)) throw refused();
      return this.cache.resolve(token, async () => {
        if (!(await this.stored.isActive(claims.sid))) throw refused();
        return {
          principal: { kind: 'operator', consoleSessionId: claims.sid },
          validUntil: claims.exp * 1000,
        };
      });
    }
    // Cached like the key itself, and evicted by the same revocations (key, merchant, sign-out) at once.
    return this.cache.resolve(token, async () => {
      const [verified, active] = await Promise.all([
        this.keys.verifyKeyId(claims.prefix, claims.apiKeyId),
        this.stored.isActive(claims.sid),
      ]);
      if (!active) throw refused();
      const validUntil = Math.min(claims.exp * 1000, verified.validUntil ?? Infinity);
      return { principal: { ...verified.principal, validUntil, consoleSessionId: claims.sid }, validUntil };
    });
  }
}
