import type { NewUser, User, UserDeleteResult, UserPatchOperation } from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import { type CallOptions, segment } from './upstream-request.js';

/** The upstream's users (spec §4.4), to whom consents belong: `upstream.users`. */
export class UpstreamUsersOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** POST /users (answers the bare user). Not retried: a repeat would conflict (409). */
  create(body: NewUser, options?: CallOptions) {
    return this.core.send<User>(
      { operation: 'addUser', consent: 'none', method: 'POST', path: '/users', body, envelope: 'bare' },
      options,
    );
  }

  /** GET /users, optionally filtered by `applicationUserId` (answers a bare array). */
  list(query: { applicationUserId?: string | string[] } = {}, options?: CallOptions) {
    return this.core.send<User[]>(
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
  get(userUuid: string, options?: CallOptions) {
    return this.core.send<User>(
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
  update(userUuid: string, operations: UserPatchOperation[], options?: CallOptions) {
    return this.core.send<User>(
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
  delete(userUuid: string, options?: CallOptions) {
    return this.core.send<UserDeleteResult>(
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
}
