import type { Application, ApplicationsQuery } from './upstream.types.js';
import { asPage, type UpstreamClientCore } from './upstream-client.core.js';
import { type CallOptions, segment } from './upstream-request.js';

/** The upstream's applications (spec §4.5): the root's sub-applications, one per merchant. */
export class UpstreamApplicationsOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** GET /applications: the root's sub-applications, one page (empty for sub-application credentials). */
  list(query: ApplicationsQuery = {}, options?: CallOptions) {
    return this.core
      .send<Application[]>(
        {
          operation: 'searchApplications',
          consent: 'none',
          method: 'GET',
          path: '/applications',
          query: { ...query },
        },
        options,
      )
      .then((page) => asPage(page, 'searchApplications'));
  }

  /** GET /applications/{applicationId}. */
  get(applicationId: string, options?: CallOptions) {
    return this.core.send<Application>(
      {
        operation: 'getApplicationById',
        consent: 'none',
        method: 'GET',
        path: `/applications/${segment(applicationId)}`,
      },
      options,
    );
  }
}
