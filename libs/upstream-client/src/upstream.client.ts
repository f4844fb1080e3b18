import type {
  Application,
  ApplicationsQuery,
  ConstraintsQuery,
  EventSubscription,
  Institution,
  InstitutionConstraint,
  NewUser,
  RegisteredWebhook,
  RegisterWebhookRequest,
  ResetWebhookSecretRequest,
  User,
  UserDeleteResult,
  UserPatchOperation,
  Webhook,
  WebhookCategory,
} from './upstream.types.js';
import { asPage } from './upstream-client.base.js';
import { UpstreamPaymentOperations } from './upstream-payment.operations.js';
import { type CallOptions, segment } from './upstream-request.js';

export { type CursorPagingQuery, type UpstreamClientOptions } from './upstream-client.base.js';
export { RETRY_RULES } from './upstream-retry.rules.js';

/**
 * The typed client for every upstream operation the BFF uses. Each method returns the unwrapped
 * `data` with `tracingId` and `requestId`, or throws {@link UpstreamError}. Paged lists come as async
 * iterators of pages (`…Pages`) next to the single-page calls. One class, its operations written in
 * groups a file each, by the spec's sections: the transport, retry rules and breakers in
 * upstream-client.base.ts, then consents, financial data and payments, each group extending the one
 * before; users, applications, institutions and webhooks here.
 */
export class UpstreamClient extends UpstreamPaymentOperations {
  // ---- 4.4 users ------------------------------------------------------------------------------------

  /** POST /users (answers the bare user). Not retried: a repeat would conflict (409). */
  createUser(body: NewUser, options?: CallOptions) {
    return this.send<User>(
      { operation: 'addUser', consent: 'none', method: 'POST', path: '/users', body, envelope: 'bare' },
      options,
    );
  }

  /** GET /users, optionally filtered by `applicationUserId` (answers a bare array). */
  listUsers(query: { applicationUserId?: string | string[] } = {}, options?: CallOptions) {
    return this.send<User[]>(
      {
        operation: 'getUsers',
        consent: 'none',
        method: 'GET',
        path: '/users',
        query: { 'filter[applicationUserId]': query.applicationUserId },
        envelope: 'bare',
      },
      options,
    );
  }

  /** GET /users/{userUuid} (answers the bare user). */
  getUser(userUuid: string, options?: CallOptions) {
    return this.send<User>(
      {
        operation: 'getUser',
        consent: 'none',
        method: 'GET',
        path: `/users/${segment(userUuid)}`,
        envelope: 'bare',
      },
      options,
    );
  }

  /** PATCH /users/{userUuid} (JSON Patch). Retried only when every operation is `replace`. */
  updateUser(userUuid: string, operations: UserPatchOperation[], options?: CallOptions) {
    return this.send<User>(
      {
        operation: 'patchUser',
        consent: 'none',
        method: 'PATCH',
        path: `/users/${segment(userUuid)}`,
        body: operations,
        contentType: 'application/json-patch+json',
        envelope: 'bare',
      },
      options,
    );
  }

  /** DELETE /users/{userUuid}: deletes the user and revokes their consents. */
  deleteUser(userUuid: string, options?: CallOptions) {
    return this.send<UserDeleteResult>(
      {
        operation: 'deleteUser',
        consent: 'none',
        method: 'DELETE',
        path: `/users/${segment(userUuid)}`,
        goneOnRetry: { id: userUuid, deleteStatus: 'SUCCESS' } satisfies UserDeleteResult,
      },
      options,
    );
  }

  // ---- 4.5 applications -----------------------------------------------------------------------------

  /** GET /applications: the root's sub-applications, one page (empty for sub-application credentials). */
  listApplications(query: ApplicationsQuery = {}, options?: CallOptions) {
    return this.send<Application[]>(
      {
        operation: 'searchApplications',
        consent: 'none',
        method: 'GET',
        path: '/applications',
        query: { ...query },
      },
      options,
    ).then((page) => asPage(page, 'searchApplications'));
  }

  /** GET /applications/{applicationId}. */
  getApplication(applicationId: string, options?: CallOptions) {
    return this.send<Application>(
      {
        operation: 'getApplicationById',
        consent: 'none',
        method: 'GET',
        path: `/applications/${segment(applicationId)}`,
      },
      options,
    );
  }

  // ---- institutions ---------------------------------------------------------------------------------

  /** GET /institutions. */
  listInstitutions(options?: CallOptions) {
    return this.send<Institution[]>(
      { operation: 'getInstitutions', consent: 'none', method: 'GET', path: '/institutions' },
      options,
    ).then((result) => {
      // Ids the upstream itself listed may label breaker metrics; caller-chosen ones may not.
      if (Array.isArray(result.data)) this.transport.rememberInstitutions(result.data.map((i) => i.id));
      return result;
    });
  }

  /**
   * GET /institutions/constraints/data or /payments: what the institutions require of each endpoint
   * (the PSU headers among it). Ids comma-separated, all of the one country.
   */
  getInstitutionConstraints(kind: 'data' | 'payments', query: ConstraintsQuery, options?: CallOptions) {
    return this.send<InstitutionConstraint[]>(
      {
        operation:
          kind === 'data'
            ? 'getAccountConstraintsRulesByInstitution'
            : 'getPaymentConstraintsRulesByInstitution',
        consent: 'none',
        method: 'GET',
        path: `/institutions/constraints/${kind}`,
        query: {
          institutionIds: query.institutionIds.join(','),
          institutionCountryCode: query.institutionCountryCode,
          paymentType: query.paymentType,
          endpointPath: query.endpointPath,
          endpointMethod: query.endpointMethod,
        },
      },
      options,
    );
  }

  /** GET /institutions/{institutionId} (answers the bare institution). */
  getInstitution(institutionId: string, options?: CallOptions) {
    return this.send<Institution>(
      {
        operation: 'getInstitution',
        consent: 'none',
        method: 'GET',
        path: `/institutions/${segment(institutionId)}`,
        envelope: 'bare',
      },
      options,
    );
  }

  // ---- 4.7 notifications (deprecated) and webhooks --------------------------------------------------

  /** GET /notifications/event-subscriptions. */
  listEventSubscriptions(options?: CallOptions) {
    return this.send<EventSubscription[]>(
      {
        operation: 'getEventSubscriptions',
        consent: 'none',
        method: 'GET',
        path: '/notifications/event-subscriptions',
      },
      options,
    );
  }

  /** DELETE /notifications/event-subscriptions/{eventTypeId}. */
  deleteEventSubscription(eventTypeId: string, options?: CallOptions) {
    return this.send<EventSubscription & { deleteStatus?: string }>(
      {
        operation: 'deleteEventSubscriptionById',
        consent: 'none',
        method: 'DELETE',
        path: `/notifications/event-subscriptions/${segment(eventTypeId)}`,
        goneOnRetry: { eventTypeId, deleteStatus: 'SUCCESS' },
      },
      options,
    );
  }

  /** GET /webhook/events/categories (the answer's meta member is called `metadata`). */
  getWebhookCategories(options?: CallOptions) {
    return this.send<{ categories: WebhookCategory[] }>(
      {
        operation: 'getWebhookCategories',
        consent: 'none',
        method: 'GET',
        path: '/webhook/events/categories',
      },
      options,
    );
  }

  /** POST /webhook/events. The answer's `webhookSecret` is shown once: store it before anything else. */
  registerWebhook(body: RegisterWebhookRequest, options?: CallOptions) {
    return this.send<RegisteredWebhook>(
      { operation: 'registerWebhook', consent: 'none', method: 'POST', path: '/webhook/events', body },
      options,
    );
  }

  /** GET /webhook/events: the registered webhooks. */
  listWebhooks(options?: CallOptions) {
    return this.send<{ active: Webhook[] }>(
      { operation: 'getRegisteredWebhooks', consent: 'none', method: 'GET', path: '/webhook/events' },
      options,
    );
  }

  /**
   * POST /webhook/secrets/{webhookId}: a new `webhookSecret`, shown once like the first. The old secret
   * keeps signing deliveries beside the new one for `delay` seconds.
   */
  resetWebhookSecret(webhookId: string, body: ResetWebhookSecretRequest, options?: CallOptions) {
    return this.send<RegisteredWebhook>(
      {
        operation: 'resetWebhookSecret',
        consent: 'none',
        method: 'POST',
        path: `/webhook/secrets/${segment(webhookId)}`,
        body,
      },
      options,
    );
  }

  /** DELETE /webhook/events/{webhookId}. */
  deleteWebhook(webhookId: string, options?: CallOptions) {
    return this.send<Webhook>(
      {
        operation: 'deleteWebhook',
        consent: 'none',
        method: 'DELETE',
        path: `/webhook/events/${segment(webhookId)}`,
        goneOnRetry: { id: webhookId },
      },
      options,
    );
  }
}
