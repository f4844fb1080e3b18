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
  type WebhookCategory,
} from '#libs/upstream-client';
import {
  callOptionsFor,
  failedAt,
  type MigrationReport,
  type MigrationStep,
  type MigrationStepName,
  webhookSecretOf,
  webhookStatusOf,
} from './upstream-webhook.answers.js';
import { UpstreamWebhookRepository, type UpstreamWebhookView } from './upstream-webhook.repository.js';

/** Where a registration goes: the root application, or the sub-application of a merchant. */
export interface WebhookApplication {
  /** The merchant owning `subApplicationId`; null for the root application. */
  merchantId: string | null;
  /** Null: the root application (UPSTREAM_APPLICATION_ID). */
  subApplicationId: string | null;
}

export interface WebhookRegistrationRequest {
  /** Absent: every category the upstream offers. */
  categories?: string[];
  /** Absent: our receiver, API_PUBLIC_URL + /v1/webhooks/upstream. */
  callbackUrl?: string;
}

/** The most the upstream accepts as a reset's `delay` (the sandbox refuses more than a day). */
export const MAX_SECRET_RESET_DELAY_SECONDS = 86_400;

/** An upstream failure as the API answers it. */
const rethrowMapped = (error: unknown): never => {
  throw mapUpstreamFailure(error);
};

/**
 * Registers our webhook receiver with the upstream (upstream spec §4.7, 5.6, 6), for the root application or a
 * merchant's sub-application, and moves an application off the deprecated notification API (upstream spec §6.3).
 * The upstream shows a webhook's secret once: it goes straight into the repository, sealed, and is never
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
    const { data } = await this.upstream.getWebhookCategories().catch(rethrowMapped);
    return data.categories;
  }

  async register(app: WebhookApplication, request: WebhookRegistrationRequest = {}) {
    const categories =
      request.categories ?? (await this.offered(this.applicationIdOf(app)).catch(rethrowMapped));
    return this.registerWith(app, categories, this.callbackUrl(request));
  }

  /**
   * Our receiver registered for the application, once: a current registration of ours that the upstream
   * still lists is kept (`created: false`), otherwise one is made. For `npm start` against the sandbox,
   * whose registrations do not outlive it; repeating it is harmless.
   */
  async ensureRegistered(
    app: WebhookApplication,
  ): Promise<{ registration: UpstreamWebhookView; created: boolean }> {
    const applicationId = this.applicationIdOf(app);
    const existing = await this.stillRegistered(applicationId, this.callbackUrl({})).catch(rethrowMapped);
    if (existing) return { registration: existing, created: false };
    return { registration: await this.register(app), created: true };
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
      reset = (await this.upstream.resetWebhookSecret(current.upstreamWebhookId, { delay }, options)).data;
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

  /**
   * Spec 6.3, step by step, each step idempotent so a run can be repeated or resumed after a failure:
   * list the notification subscriptions, delete each, list the categories, register the webhook (unless
   * a current registration of ours with the same callback still exists upstream). A failed step stops
   * the run: the upstream failure is thrown as usual, with every step so far in its `details`.
   */
  async migrate(app: WebhookApplication, request: WebhookRegistrationRequest = {}): Promise<MigrationReport> {
    const applicationId = this.applicationIdOf(app);
    const options = this.optionsFor(applicationId);
    const steps: MigrationStep[] = [];
    const run = async <T>(step: MigrationStepName, target: string | undefined, work: () => Promise<T>) => {
      try {
        return await work();
      } catch (error) {
        throw failedAt(steps, step, target, error);
      }
    };

    const subscriptions = await run('list-subscriptions', undefined, async () => {
      const { data } = await this.upstream.listEventSubscriptions(options);
      return Array.isArray(data) ? data : [];
    });
    steps.push({ step: 'list-subscriptions', outcome: 'done', detail: `${subscriptions.length} found` });

    for (const { eventTypeId } of subscriptions) {
      const outcome = await run('delete-subscription', eventTypeId, async () => {
        try {
          await this.upstream.deleteEventSubscription(eventTypeId, options);
          return 'done' as const;
        } catch (error) {
          if (error instanceof UpstreamError && error.kind === 'NOT_FOUND') return 'skipped' as const;
          throw error;
        }
      });
      steps.push({
        step: 'delete-subscription',
        target: eventTypeId,
        outcome,
        ...(outcome === 'skipped' ? { detail: 'already deleted' } : {}),
      });
    }

    const offered = await run('list-categories', undefined, () => this.offered(applicationId));
    const categories = request.categories ?? offered;
    steps.push({ step: 'list-categories', outcome: 'done', detail: offered.join(', ') });

    const callbackUrl = this.callbackUrl(request);
    const registration = await run('register', callbackUrl, async () => {
      const existing = await this.stillRegistered(applicationId, callbackUrl);
      return existing ? { existing } : { created: await this.registerWith(app, categories, callbackUrl) };
    });
    const view = registration.existing ?? registration.created;
    steps.push({
      step: 'register',
      target: callbackUrl,
      outcome: registration.existing ? 'skipped' : 'done',
      detail: `${registration.existing ? 'already registered as ' : ''}upstream webhook ${view.upstreamWebhookId}`,
    });
    return { applicationId, steps, registration: view };
  }

  private get rootId(): string {
    return this.config.upstream.applicationId;
  }

  private applicationIdOf(app: WebhookApplication): string {
    return app.subApplicationId ?? this.rootId;
  }

  private optionsFor(applicationId: string): CallOptions {
    return callOptionsFor(applicationId, this.rootId);
  }

  private async offered(applicationId: string): Promise<string[]> {
    const { data } = await this.upstream.getWebhookCategories(this.optionsFor(applicationId));
    return data.categories.map((c) => c.name);
  }

  private callbackUrl(request: WebhookRegistrationRequest): string {
    return request.callbackUrl ?? publicRouteUrl(this.config.api.publicUrl, 'upstreamWebhook');
  }

  /** Our current registration for this callback, if the upstream still lists its webhook. */
  private async stillRegistered(applicationId: string, callbackUrl: string) {
    const ours = (await this.registrations.listActive(applicationId)).filter(
      (r) => r.callbackUrl === callbackUrl && r.upstreamWebhookId,
    );
    if (ours.length === 0) return undefined;
    const { data } = await this.upstream.listWebhooks(this.optionsFor(applicationId));
    const live = new Set((data.active ?? []).map((w) => w.id));
    return ours.find((r) => live.has(r.upstreamWebhookId!));
  }

  private async registerWith(
    app: WebhookApplication,
    categories: string[],
    callbackUrl: string,
  ): Promise<UpstreamWebhookView> {
    const applicationId = this.applicationIdOf(app);
    const options = this.optionsFor(applicationId);
    let registered: RegisteredWebhook;
    try {
      registered = (
        await this.upstream.registerWebhook(
          { applicationId, categories, callbackUrl: { main: { url: callbackUrl } } },
          options,
        )
      ).data;
    } catch (error) {
      // What the upstream refuses here is the operator's input (categories, callback URL).
      throw mapUpstreamFailure(error, { field: 'body' });
    }
    try {
      const view = await this.registrations.store({
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
        await this.upstream.deleteWebhook(registered.id, options).catch((cleanup: unknown) => {
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
