import { randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ResetRegistryService } from './reset-registry.service.js';
import { SandboxClockService } from './sandbox-clock.service.js';

/** An application as the upstream describes it (upstream spec §2.2), plus the secret the sandbox checks. */
export interface SandboxApplication {
  id: string;
  name: string;
  merchantCategoryCode: number;
  ppcUserGroup: string;
  callbackUrls: string[];
  isContractPresent: boolean;
  rootApplicationId?: string;
  createdAt: string;
  secret: string;
}

/** The seeded sub-applications: fixed ids and secrets, documented in the README. */
export const SEEDED_SUB_APPLICATIONS = [
  { id: '00000000-0000-4000-8000-0000000000a1', name: 'Sandbox merchant A', secret: 'sandbox-sub-secret-a' },
  { id: '00000000-0000-4000-8000-0000000000a2', name: 'Sandbox merchant B', secret: 'sandbox-sub-secret-b' },
] as const;

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

@Injectable()
export class ApplicationRegistryService {
  private applications = new Map<string, SandboxApplication>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: SandboxClockService,
    resets: ResetRegistryService,
  ) {
    this.seed();
    resets.register(() => this.seed(), {
      name: 'applications',
      save: () => this.applications,
      load: (saved) => {
        this.applications = saved as Map<string, SandboxApplication>;
      },
    });
  }

  get root(): SandboxApplication {
    return this.applications.get(this.config.upstream.applicationId)!;
  }

  /** The application whose id and secret these are, or undefined. */
  authenticate(id: string, secret: string): SandboxApplication | undefined {
    const app = this.applications.get(id);
    return app && safeEqual(app.secret, secret) ? app : undefined;
  }

  get(id: string): SandboxApplication | undefined {
    return this.applications.get(id);
  }

  subApplicationsOf(rootId: string): SandboxApplication[] {
    return [...this.applications.values()].filter((a) => a.rootApplicationId === rootId);
  }

  createSubApplication(
    rootId: string,
    input: { name: string; merchantCategoryCode?: number; callbackUrls?: string[] },
  ) {
    const app: SandboxApplication = {
      id: randomUUID(),
      name: input.name,
      merchantCategoryCode: input.merchantCategoryCode ?? 5999,
      ppcUserGroup: 'DEFAULT',
      callbackUrls: input.callbackUrls ?? [],
      isContractPresent: true,
      rootApplicationId: rootId,
      createdAt: this.clock.now().toISOString(),
      secret: `sandbox-sub-secret-${randomUUID()}`,
    };
    this.applications.set(app.id, app);
    return app;
  }

  /** The wire form: never the secret. */
  static view(app: SandboxApplication) {
    const { secret: _secret, ...rest } = app;
    return rest;
  }

  private seed(): void {
    const createdAt = '2026-01-01T00:00:00.000Z';
    const root: SandboxApplication = {
      id: this.config.upstream.applicationId,
      name: 'Sandbox root application',
      merchantCategoryCode: 5999,
      ppcUserGroup: 'DEFAULT',
      callbackUrls: [],
      isContractPresent: true,
      createdAt,
      secret: this.config.upstream.applicationSecret,
    };
    this.applications = new Map([[root.id, root]]);
    for (const sub of SEEDED_SUB_APPLICATIONS) {
      this.applications.set(sub.id, {
        ...root,
        id: sub.id,
        name: sub.name,
        secret: sub.secret,
        rootApplicationId: root.id,
      });
    }
  }
}
