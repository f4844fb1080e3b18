import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { within } from '#libs/core';
import { UpstreamWebhookRegistrationService } from '#libs/domain/inbox';
import { type AppLogger, LOGGER } from '#libs/observability';

/**
 * With UPSTREAM_WEBHOOK_AUTO_REGISTER (set by `npm start`), registers our receiver for the root application
 * as the api starts, unless the upstream still lists ours (a sandbox reset, or started on fresh state, has
 * forgotten it); without one a consent revoked at the bank stays AUTHORIZED here until a read fails. In the
 * background, so a slow upstream does not hold the api's start; a failure is logged and readiness shows it.
 */
@Injectable()
export class UpstreamReceiverRegistrar implements OnApplicationBootstrap {
  /** The registration under way (it never rejects: a failure is logged), for tests and `finishBy`. */
  running: Promise<void> = Promise.resolve();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly registrations: UpstreamWebhookRegistrationService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.events.upstreamAutoRegister) return;
    this.running = this.registrations
      .ensureRegistered({ merchantId: null, subApplicationId: null })
      .then(({ registration, created }) =>
        this.logger.info(
          { upstreamWebhookId: registration.upstreamWebhookId, callbackUrl: registration.callbackUrl },
          created ? 'upstream webhook receiver registered' : 'upstream webhook receiver already registered',
        ),
      )
      .catch((err: unknown) =>
        this.logger.warn(
          { err },
          'could not register the upstream webhook receiver: POST /admin/upstream/webhooks registers it by hand',
        ),
      );
  }

  /**
   * The api's shutdown waits here (before the database is closed) for the registration under way, until
   * `deadlineAt` (ms since the epoch): an api stopped just after it started otherwise cuts it between
   * registering upstream and storing the secret. Past the deadline it stops anyway; the webhook it may
   * have registered upstream, with no row here, is adopted by the next registration for the URL.
   */
  async finishBy(deadlineAt: number): Promise<void> {
    const { done } = await within(this.running, deadlineAt - Date.now(), () => undefined);
    if (!done) {
      this.logger.warn(
        'upstream webhook registration still under way at shutdown: the next one adopts what it registered',
      );
    }
  }
}
