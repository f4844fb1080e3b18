// Types of private-replica.mjs for the TypeScript tests.
import type { PrivatePostgres } from './private-services.mjs';

export interface PrivateReplica extends PrivatePostgres {
  /** Holds its replay where it is: it falls behind the primary on purpose. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** How far it has replayed the primary's WAL (`0/3000148`). */
  replayLsn(): Promise<string>;
}

/** A streaming replica of a private Postgres (pg_basebackup -R), read-only, on a port of its own. */
export function startPrivateReplica(primary: PrivatePostgres): Promise<PrivateReplica>;
