import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { publicRouteUrl } from '#libs/routes';
import {
  type CallOptions,
  type RegisteredWebhook,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
  type Webhook,
  type WebhookCategory,
} from '#libs/upstream-client';
import {
  callOptionsFor,
  MAX_SECRET_RESET_DELAY_SECONDS,
  rethrowMapped,
  sameSet,
  type WebhookApplication,
  type WebhookRegistrationRequest,
  webhookSecretOf,
  webhookStatusOf,
} from './upstream-webhook.answers.js';
import {
  type LockedRegistrations,
  UpstreamWebhookRepository,
  type UpstreamWebhookView,
} from './upstream-webhook.repository.js';

/**
 * Registers our webhook receiver with the upstream (upstream spec §4.7, 5.6, 6), for the root application or a
 * merchant's sub-application; UpstreamWebhookMigrationService moves an application off the deprecated
 * notification API (§6.3) through it. The upstream shows a webhook's secret once: it goes straight into the repository, sealed, and is never
 * logged or returned.
 */
@Injectable()
export class UpstreamWebhookRegistrationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly registrations: UpstreamWebhookRepository,
  ) {}

  list(): Promise<UpstreamWebhookView[]> {
    return this.registrations.list();
  }

  async categories(): Promise<WebhookCategory[]> {
    const { data } = await this.upstream.webhooks.getCategories().catch(rethrowMapped);
    return data.categories;
  }

  /**
   * Our receiver registered for the application at the callback URL, once, however often and by however
   * many processes at once (`created: false`: ours was still listed). Under the application's lock: of
   * the upstream's webhooks for the URL with these categories, ours is kept, or one whose secret was
   * lost (a process stopped between registering and storing) adopted with a new secret, or else one
   * registered; every other webhook for the URL is deleted, since each would deliver every event again.
   */
  async ensureRegistered(
    app: WebhookApplication,
    request: WebhookRegistrationRequest = {},
  ): Promise<{ registration: UpstreamWebhookView; created: boolean }> {
    const applicationId = this.applicationIdOf(app);
    const callbackUrl = this.callbackUrl(request);
    const categories = request.categories ?? (await this.offered(applicationId).catch(rethrowMapped));
    return this.registrations.withRegistrationLock(applicationId, async (locked) => {
      const { data } = await this.upstream.webhooks.list(this.optionsFor(applicationId)).catch(rethrowMapped);
      const live = (data.active ?? []).filter((w) => w.callbackUrl?.main?.url === callbackUrl);
      const alike = live.filter((w) => sameSet(w.categories ?? [], categories));
      const ours = (await locked.listActive()).find(
        (r) => r.callbackUrl === callbackUrl && alike.some((w) => w.id === r.upstreamWebhookId),
      );
      const registration =
        ours ??
        (alike[0]
          ? await this.adopt(locked, app, alike[0], callbackUrl)
          : await this.registerWith(locked, app, categories, callbackUrl));
      await this.deleteOthers(applicationId, live, registration.upstreamWebhookId);
      return { registration, created: !ours };
    });
  }

  /**
   * A new secret upstream for one of our current registrations. The upstream keeps signing with the old
   * one for the grace period too, and storing the new one retires our old row, whose secret therefore
   * still verifies for as long.
   */
  async resetSecret(id: string): Promise<UpstreamWebhookView> {
    const current = await this.registrations.findCurrent(id);
    if (!current) throw new DomainError(ErrorCode.NOT_FOUND, 'Upstream webhook registration not found.');
    if (!current.upstreamWebhookId) {
      throw new DomainError(
        ErrorCode.CONFLICT,
        'No upstream webhook id is known for this registration, so its secret cannot be reset: register again.',
      );
    }
    const grace = this.config.tuning.upstreamWebhookSecretGraceHours * 3600;
    const delay = Math.min(grace, MAX_SECRET_RESET_DELAY_SECONDS);
    const options = this.optionsFor(current.applicationId);
    let reset: RegisteredWebhook;
    try {
      reset = (await this.upstream.webhooks.resetSecret(current.upstreamWebhookId, { delay }, options)).data;
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'NOT_FOUND') {
        // Removed upstream: nothing signs with this registration's secret any more.
        await this.registrations.retire(current.id);
      }
      throw mapUpstreamFailure(error, { resource: 'webhook' });
    }
    const { applicationId, merchantId, upstreamWebhookId } = current;
    const input = {
      applicationId,
      merchantId,
      upstreamWebhookId,
      categories: reset.categories ?? current.categories,
      callbackUrl: reset.callbackUrl?.main?.url ?? current.callbackUrl,
      secret: webhookSecretOf(reset),
      status: webhookStatusOf(reset) ?? current.status,
    };
    return this.registrations.store(input);
  }

  private get rootId(): string {
    return this.config.upstream.applicationId;
  }

  /** The application a registration is for: the merchant's sub-application, else the root. */
  applicationIdOf(app: WebhookApplication): string {
    return app.subApplicationId ?? this.rootId;
  }

  optionsFor(applicationId: string): CallOptions {
    return callOptionsFor(applicationId, this.rootId);
  }

  /** The categories the upstream offers the application: what a registration asks for unless told. */
  async offered(applicationId: string): Promise<string[]> {
    const { data } = await this.upstream.webhooks.getCategories(this.optionsFor(applicationId));
    return data.categories.map((c) => c.name);
  }

  /** Our receiver's public URL, unless the request names another. */
  callbackUrl(request: WebhookRegistrationRequest): string {
    return request.callbackUrl ?? publicRouteUrl(this.config.api.publicUrl, 'upstreamWebhook');
  }

  /** A webhook of ours upstream whose secret we do not hold: a new one, the old one no longer signing. */
  private async adopt(
    locked: LockedRegistrations,
    app: WebhookApplication,
    webhook: Webhook,
    callbackUrl: string,
  ): Promise<UpstreamWebhookView> {
    const applicationId = this.applicationIdOf(app);
    const upstreamWebhookId = webhook.id;
    const { data: reset } = await this.upstream.webhooks
      .resetSecret(upstreamWebhookId, { delay: 0 }, this.optionsFor(applicationId))
      .catch(rethrowMapped);
    const view = await locked.store({
      applicationId,
      merchantId: app.subApplicationId ? app.merchantId : null,
      upstreamWebhookId,
      categories: reset.categories ?? webhook.categories ?? [],
      callbackUrl: reset.callbackUrl?.main?.url ?? callbackUrl,
      secret: webhookSecretOf(reset),
      status: webhookStatusOf(reset),
    });
    this.logger.info(
      { registrationId: view.id, applicationId, upstreamWebhookId },
      'upstream webhook adopted',
    );
    return view;
  }

  /** Every webhook for the URL but the one kept. Gone already is fine; a failure waits for the next call. */
  private async deleteOthers(applicationId: string, live: Webhook[], kept: string | null): Promise<void> {
    for (const { id } of live.filter((w) => w.id !== kept)) {
      await this.upstream.webhooks.delete(id, this.optionsFor(applicationId)).catch((err: unknown) => {
        if (err instanceof UpstreamError && err.kind === 'NOT_FOUND') return;
        this.logger.warn(
          { err, applicationId, upstreamWebhookId: id },
          'duplicate upstream webhook not deleted',
        );
      });
    }
  }

  private async registerWith(
    locked: LockedRegistrations,
    app: WebhookApplication,
    categories: string[],
    callbackUrl: string,
  ): Promise<UpstreamWebhookView> {
    const applicationId = this.applicationIdOf(app);
    const options = this.optionsFor(applicationId);
    let registered: RegisteredWebhook;
    try {
      registered = (
        await this.upstream.webhooks.register(
          { applicationId, categories, callbackUrl: { main: { url: callbackUrl } } },
          options,
        )
      ).data;
    } catch (error) {
      // What the upstream refuses here is the operator's input (categories, callback URL).
      throw mapUpstreamFailure(error, { field: 'body' });
    }
    try {
      const view = await locked.store({
        applicationId,
        merchantId: app.subApplicationId ? app.merchantId : null,
        upstreamWebhookId: typeof registered.id === 'string' ? registered.id : null,
        categories: registered.categories ?? categories,
        callbackUrl: registered.callbackUrl?.main?.url ?? callbackUrl,
        secret: webhookSecretOf(registered),
        status: webhookStatusOf(registered),
      });
      this.logger.info(
        { registrationId: view.id, applicationId, upstreamWebhookId: view.upstreamWebhookId },
        'upstream webhook registered',
      );
      return view;
    } catch (error) {
      // A webhook whose secret we could not keep only sends events we would refuse: take it back.
      if (typeof registered.id === 'string') {
        await this.upstream.webhooks.delete(registered.id, options).catch((cleanup: unknown) => {
          this.logger.error(
            { err: cleanup, applicationId, upstreamWebhookId: registered.id },
            'upstream webhook registered but not stored, and could not be deleted',
          );
        });
      }
      throw error;
    }
  }
}
