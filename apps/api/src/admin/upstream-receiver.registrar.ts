import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
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
  /** The registration under way, for tests and for the api's shutdown to wait on. */
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
}
