import type { NewUser, User, UserDeleteResult, UserPatchOperation } from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import type { CallOptions } from './upstream-request.js';

/** The upstream's users (spec §4.4), to whom consents belong: `upstream.users`. */
export class UpstreamUsersOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** POST /users (answers the bare user). Not retried: a repeat would conflict (409). */
  create(body: NewUser, options?: CallOptions) {
    return this.core.call<User>('addUser', { body }, options);
  }

  /** GET /users, optionally filtered by `applicationUserId` (answers a bare array). */
  list(query: { applicationUserId?: string | string[] } = {}, options?: CallOptions) {
    const parts = { query: { 'filter[applicationUserId]': query.applicationUserId } };
    return this.core.call<User[]>('getUsers', parts, options);
  }

  /** GET /users/{userUuid} (answers the bare user). */
  get(userUuid: string, options?: CallOptions) {
    return this.core.call<User>('getUser', { ids: { userUuid } }, options);
  }

  /** PATCH /users/{userUuid} (JSON Patch). Retried only when every operation is `replace`. */
  update(userUuid: string, operations: UserPatchOperation[], options?: CallOptions) {
    return this.core.call<User>('patchUser', { ids: { userUuid }, body: operations }, options);
  }

  /** DELETE /users/{userUuid}: deletes the user and revokes their consents. */
  delete(userUuid: string, options?: CallOptions) {
    const goneOnRetry = { id: userUuid, deleteStatus: 'SUCCESS' } satisfies UserDeleteResult;
    return this.core.call<UserDeleteResult>('deleteUser', { ids: { userUuid }, goneOnRetry }, options);
  }
}
