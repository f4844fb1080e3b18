import { Inject, Injectable } from '@nestjs/common';
import { UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import {
  failedAt,
  type MigrationReport,
  type MigrationStep,
  type MigrationStepName,
  type WebhookApplication,
  type WebhookRegistrationRequest,
} from './upstream-webhook.answers.js';
import { UpstreamWebhookRegistrationService } from './upstream-webhook-registration.service.js';

/**
 * Moves an application off the upstream's deprecated notification API (upstream spec §6.3): a one-off
 * run of steps, reported one by one, that ends in the registration the registration service keeps.
 */
@Injectable()
export class UpstreamWebhookMigrationService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly registration: UpstreamWebhookRegistrationService,
  ) {}

  /**
   * Spec 6.3, step by step, each step idempotent so a run can be repeated or resumed after a failure:
   * list the notification subscriptions, delete each, list the categories, register the webhook (unless
   * a current registration of ours with the same callback still exists upstream). A failed step stops
   * the run: the upstream failure is thrown as usual, with every step so far in its `details`.
   */
  async migrate(app: WebhookApplication, request: WebhookRegistrationRequest = {}): Promise<MigrationReport> {
    const applicationId = this.registration.applicationIdOf(app);
    const options = this.registration.optionsFor(applicationId);
    const steps: MigrationStep[] = [];
    const run = async <T>(step: MigrationStepName, target: string | undefined, work: () => Promise<T>) => {
      try {
        return await work();
      } catch (error) {
        throw failedAt(steps, step, target, error);
      }
    };

    const subscriptions = await run('list-subscriptions', undefined, async () => {
      const { data } = await this.upstream.webhooks.listEventSubscriptions(options);
      return Array.isArray(data) ? data : [];
    });
    steps.push({ step: 'list-subscriptions', outcome: 'done', detail: `${subscriptions.length} found` });

    for (const { eventTypeId } of subscriptions) {
      const outcome = await run('delete-subscription', eventTypeId, async () => {
        try {
          await this.upstream.webhooks.deleteEventSubscription(eventTypeId, options);
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

    const offered = await run('list-categories', undefined, () => this.registration.offered(applicationId));
    const categories = request.categories ?? offered;
    steps.push({ step: 'list-categories', outcome: 'done', detail: offered.join(', ') });

    const callbackUrl = this.registration.callbackUrl(request);
    const { registration: view, created } = await run('register', callbackUrl, () =>
      this.registration.ensureRegistered(app, { categories, callbackUrl }),
    );
    steps.push({
      step: 'register',
      target: callbackUrl,
      outcome: created ? 'done' : 'skipped',
      detail: `${created ? '' : 'already registered as '}upstream webhook ${view.upstreamWebhookId}`,
    });
    return { applicationId, steps, registration: view };
  }
}
