import { setTimeout as wait } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { describeWork, type MerchantId } from '#libs/context';
import { UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import { consentNotFound } from './consent.errors.js';
import { ConsentRepository } from './consent.repository.js';
import { ConsentAuthoriserService } from './consent-authoriser.service.js';
import { ConsentStatus } from './consent-status.js';
import { isFinalFailure } from './embedded-consent.views.js';
import { EmbeddedConsentEndings } from './embedded-consent-endings.js';

/** How long the bank may take after the SCA code, and how often we ask meanwhile. */
export const EMBEDDED_POLL = { deadlineMs: 120_000, firstDelayMs: 500, maxDelayMs: 5_000 };

/** The worker's side of the embedded flow: after the SCA code, the bank's decision, asked for until it comes. */
@Injectable()
export class EmbeddedConsentPollService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly consents: ConsentRepository,
    private readonly authoriser: ConsentAuthoriserService,
    private readonly endings: EmbeddedConsentEndings,
  ) {}

  /**
   * The worker's poll after the SCA code: asks the upstream until the consent is authorised (then stores
   * it like the redirect callback does) or finally failed (then marks it), within a deadline counted from
   * `startedAt` (the job's creation, so a retried job does not start the clock again). Safe to run twice:
   * a consent that is no longer awaiting is left alone. `userAddress`: the user who sent the code, still
   * there: the first syncs read for them.
   */
  async pollEmbedded(
    merchantId: MerchantId,
    consentId: string,
    startedAt: number,
    userAddress?: string,
    options = EMBEDDED_POLL,
  ): Promise<{ status: string }> {
    const consent = await this.consents.findOne(merchantId, consentId);
    if (!consent) throw consentNotFound();
    describeWork({ merchantId, institutionId: consent.institutionId, consentId });
    if (consent.flow !== 'EMBEDDED' || consent.status !== ConsentStatus.AwaitingAuthorisation) {
      return { status: consent.status };
    }
    const subApplication = await this.consents.subApplicationOf(merchantId);
    const deadline = startedAt + options.deadlineMs;
    let delay = options.firstDelayMs;
    for (;;) {
      const upstream = (
        await this.upstream.consents.get(consent.upstreamConsentId, {
          subApplication,
          institutionId: consent.institutionId,
          deadlineMs: Math.max(1_000, deadline - Date.now()),
        })
      ).data;
      if (upstream.status === ConsentStatus.Authorised) {
        const stored = await this.authoriser.store(
          merchantId,
          consent,
          upstream,
          subApplication,
          userAddress,
        );
        return { status: stored.applied ? ConsentStatus.Authorised : (stored.found ?? 'GONE') };
      }
      if (isFinalFailure(upstream.status)) {
        await this.endings.endedByBank(merchantId, consent, upstream.status);
        return { status: upstream.status };
      }
      if (Date.now() + delay > deadline) {
        await this.endings.fail(
          merchantId,
          consent,
          ConsentStatus.Failed,
          'EMBEDDED_TIMEOUT',
          `Not authorised within ${options.deadlineMs / 1000} s of the SCA code`,
        );
        return { status: ConsentStatus.Failed };
      }
      await wait(delay);
      delay = Math.min(options.maxDelayMs, delay * 2);
    }
  }
}
