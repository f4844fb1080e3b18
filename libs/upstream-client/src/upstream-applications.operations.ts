import type { Application, ApplicationsQuery } from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import type { CallOptions } from './upstream-request.js';

/** The upstream's applications (spec §4.5): the root's sub-applications, one per merchant. */
export class UpstreamApplicationsOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** GET /applications: the root's sub-applications, one page (empty for sub-application credentials). */
  list(query: ApplicationsQuery = {}, options?: CallOptions) {
    return this.core.page<Application>('searchApplications', { query: { ...query } }, options);
  }

  /** GET /applications/{applicationId}. */
  get(applicationId: string, options?: CallOptions) {
    return this.core.call<Application>('getApplicationById', { ids: { applicationId } }, options);
  }
}
