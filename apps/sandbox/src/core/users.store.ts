import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ResetRegistryService } from './reset-registry.service.js';
import { SandboxClockService } from './sandbox-clock.service.js';

/** A user (upstream spec §2.3), owned by one application. */
export interface SandboxUser {
  uuid: string;
  applicationUuid: string;
  applicationUserId?: string;
  /** Whose bank data the user sees, once renamed: the name it had (see `FinancialDataStore.seedOf`). */
  dataKey?: string;
  referenceId?: string;
  createdAt: string;
  vopOptOut?: boolean;
}

@Injectable()
export class UsersStore {
  private users = new Map<string, SandboxUser>();

  constructor(
    private readonly clock: SandboxClockService,
    resets: ResetRegistryService,
  ) {
    resets.register(
      () => {
        this.users = new Map();
      },
      {
        name: 'users',
        save: () => this.users,
        load: (saved) => {
          this.users = saved as Map<string, SandboxUser>;
        },
      },
    );
  }

  create(
    applicationUuid: string,
    input: { applicationUserId?: string; referenceId?: string; vopOptOut?: boolean },
  ) {
    const user: SandboxUser = {
      uuid: randomUUID(),
      applicationUuid,
      createdAt: this.clock.now().toISOString(),
      ...input,
    };
    this.users.set(user.uuid, user);
    return user;
  }

  /** The application's user with this uuid; another application's user is "not found", as upstream. */
  get(applicationUuid: string, uuid: string): SandboxUser | undefined {
    const user = this.users.get(uuid);
    return user?.applicationUuid === applicationUuid ? user : undefined;
  }

  findByApplicationUserId(applicationUuid: string, applicationUserId: string): SandboxUser | undefined {
    for (const user of this.users.values()) {
      if (user.applicationUuid === applicationUuid && user.applicationUserId === applicationUserId)
        return user;
    }
    return undefined;
  }

  /** Finds the user by uuid or applicationUserId, creating one for an unknown applicationUserId (upstream spec §2.5). */
  resolve(
    applicationUuid: string,
    ref: { userUuid?: string; applicationUserId?: string },
  ): SandboxUser | undefined {
    if (ref.userUuid) return this.get(applicationUuid, ref.userUuid);
    if (!ref.applicationUserId) return undefined;
    return (
      this.findByApplicationUserId(applicationUuid, ref.applicationUserId) ??
      this.create(applicationUuid, { applicationUserId: ref.applicationUserId })
    );
  }

  /** Re-creates a user known only from a signed consent token (after a sandbox restart). */
  restore(user: SandboxUser): SandboxUser {
    const existing = this.users.get(user.uuid);
    if (existing) return existing;
    this.users.set(user.uuid, user);
    return user;
  }

  list(applicationUuid: string): SandboxUser[] {
    return [...this.users.values()].filter((u) => u.applicationUuid === applicationUuid);
  }

  update(user: SandboxUser): void {
    this.users.set(user.uuid, user);
  }

  delete(uuid: string): void {
    this.users.delete(uuid);
  }
}
