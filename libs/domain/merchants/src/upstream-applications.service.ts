import { Inject, Injectable } from '@nestjs/common';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { type Application, UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';

/** The upstream's sub-applications, paged through with the upstream's offset paging behind our cursor. */
@Injectable()
export class UpstreamApplicationsService {
  constructor(@Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient) {}

  async page(
    offset: number,
    limit: number,
  ): Promise<{ applications: Application[]; nextOffset: number | null }> {
    try {
      const page = await this.upstream.applications.list({ offset, limit });
      const seen = offset + page.data.length;
      // Without a total, a full page may be followed by more; an empty next page then ends the walk.
      const more = page.totalCount !== undefined ? seen < page.totalCount : page.data.length === limit;
      return { applications: page.data, nextOffset: more && page.data.length > 0 ? seen : null };
    } catch (error) {
      throw mapUpstreamFailure(error);
    }
  }
}
