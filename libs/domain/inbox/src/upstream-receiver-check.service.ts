import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import { callOptionsFor } from './upstream-webhook.answers.js';
import { UpstreamWebhookRepository } from './upstream-webhook.repository.js';

/** Applications whose registration readiness asks the upstream about at the same time. */
const RECEIVER_CHECKS_AT_ONCE = 4;

/** Whether the upstream still sends each application's events to our receiver: the readiness check's question. */
@Injectable()
export class UpstreamReceiverCheckService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly registrations: UpstreamWebhookRepository,
  ) {}

  /**
   * The applications (the root one as UPSTREAM_APPLICATION_ID) that hold consents but whose receiver the
   * upstream does not list: none of ours is current, or the upstream no longer has it (deleted there, a
   * sandbox that forgot it). What the upstream lists is the truth, not our table: one list call per
   * application that has a current registration, a few at a time. An upstream failure (or `signal`) is
   * thrown: the caller cannot tell then.
   */
  async applicationsWithoutReceiver(options: { signal?: AbortSignal } = {}): Promise<string[]> {
    const applications = await this.registrations.applicationsHoldingConsents(
      this.config.upstream.applicationId,
    );
    const missing = new Set<string>();
    const queue = [...applications];
    const worker = async () => {
      for (let applicationId = queue.shift(); applicationId; applicationId = queue.shift()) {
        if (!(await this.receiverListed(applicationId, options.signal))) missing.add(applicationId);
      }
    };
    await Promise.all(Array.from({ length: Math.min(RECEIVER_CHECKS_AT_ONCE, queue.length) }, worker));
    return applications.filter((id) => missing.has(id));
  }

  /**
   * Whether the upstream lists one of the application's current registrations of ours: by its webhook id,
   * or, for a registration the upstream gave no id, by its callback URL.
   */
  private async receiverListed(applicationId: string, signal?: AbortSignal): Promise<boolean> {
    const ours = await this.registrations.listActive(applicationId);
    if (ours.length === 0) return false;
    const { data } = await this.upstream.webhooks.list({
      ...callOptionsFor(applicationId, this.config.upstream.applicationId),
      signal,
    });
    const listed = data.active ?? [];
    const ids = new Set(listed.map((w) => w.id));
    const urls = new Set(listed.map((w) => w.callbackUrl?.main?.url));
    return ours.some((r) => (r.upstreamWebhookId ? ids.has(r.upstreamWebhookId) : urls.has(r.callbackUrl)));
  }
}
