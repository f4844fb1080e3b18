import type { AppLogger } from './logger.js';

/** Past this long without a failure, the next one is a new outage (logged again) even if no probe said so. */
const QUIET_MS = 60_000;

interface Outage {
  since: number;
  lastFailureAt: number;
  failures: number;
}

/**
 * Logs an outage of Postgres or Redis once, not once per request that meets it: `<dependency> unavailable`
 * at the first failure, `<dependency> available again` when something succeeds against it (a readiness
 * probe, the rate limiter's next lease), with how many failures it had. Per process, like the connections.
 */
class DependencyOutages {
  private readonly current = new Map<string, Outage>();

  failed(logger: AppLogger, dependency: string, err: unknown, now = Date.now()): void {
    const outage = this.current.get(dependency);
    if (outage && now - outage.lastFailureAt < QUIET_MS) {
      outage.lastFailureAt = now;
      outage.failures += 1;
      return;
    }
    this.current.set(dependency, { since: now, lastFailureAt: now, failures: 1 });
    logger.warn(
      { dependency, err },
      `${dependency} unavailable: requests that need it answer 503 SERVICE_UNAVAILABLE until it is back`,
    );
  }

  recovered(logger: AppLogger, dependency: string, now = Date.now()): void {
    const outage = this.current.get(dependency);
    if (!outage) return;
    this.current.delete(dependency);
    logger.info(
      { dependency, downMs: now - outage.since, failures: outage.failures },
      `${dependency} available again`,
    );
  }

  isDown(dependency: string): boolean {
    return this.current.has(dependency);
  }
}

export const dependencyOutages = new DependencyOutages();
