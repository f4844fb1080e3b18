import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import type { PsuHeaders } from '#libs/upstream-client';
import type { StoredConsent } from './consent.repository.js';

/** What a consent kind does when its authorisation ends; answers extra query parameters for the merchant's page. */
export interface ConsentCallbackHook {
  /**
   * The consent is authorised and its token stored (a single payment is made here, once). `psu`: the
   * user's headers when the user is present (the callback), for the bank calls made for them.
   */
  authorised(tenant: MerchantId, consent: StoredConsent, psu?: PsuHeaders): Promise<Record<string, string>>;
  /** The user, the bank or the token exchange ended the authorisation before it succeeded. */
  failed(tenant: MerchantId, consent: StoredConsent, status: string): Promise<Record<string, string>>;
}

/**
 * Per-kind steps after the redirect callback. Payments register theirs at start-up, so this library
 * needs nothing of theirs (payments depend on consents, never the reverse); the connect funnel its own
 * for data consents (ConnectFunnelService).
 */
@Injectable()
export class ConsentCallbackHooks {
  private readonly byKind = new Map<string, ConsentCallbackHook>();

  register(kind: 'ACCOUNT' | 'PAYMENT' | 'VRP_SWEEPING', hook: ConsentCallbackHook): void {
    this.byKind.set(kind, hook);
  }

  for(kind: string): ConsentCallbackHook | undefined {
    return this.byKind.get(kind);
  }
}
