// A streaming replica of a private Postgres (private-services.mjs), for tests and benches of reads that
// may be a little behind. Plain Node ESM (types: private-replica.d.mts).
import { join } from 'node:path';
import { asPostgres, cluster, freePort, postgresBin, postgresDir } from './private-services.mjs';

/**
 * A streaming replica of `primary` (a private Postgres) on a free port: a `pg_basebackup -R` of it, started
 * as a hot standby, read-only, replaying the primary's WAL as it comes. `pauseReplay()` holds its replay
 * where it is (a replica falling behind on purpose), `resumeReplay()` lets it catch up; `replayLsn()` is
 * how far it has replayed. Stopped and removed at process exit.
 */
export async function startPrivateReplica(primary) {
  const bin = postgresBin();
  const port = await freePort();
  const dir = postgresDir('bff-private-replica-');
  const data = join(dir, 'data');
  // A fast checkpoint to start from: a spread one would wait most of checkpoint_timeout.
  asPostgres(join(bin, 'pg_basebackup'), [
    ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
    ...['-D', data, '-R', '-X', 'stream', '--no-sync', '--checkpoint=fast'],
  ]);
  const server = cluster({ bin, dir, data, port, settings: { hot_standby: 'on' } });
  await server.start();
  const sql = async (text) => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    ...server,
    pauseReplay: async () => {
      await sql('SELECT pg_wal_replay_pause()');
    },
    resumeReplay: async () => {
      await sql('SELECT pg_wal_replay_resume()');
    },
    replayLsn: async () => (await sql('SELECT pg_last_wal_replay_lsn()::text AS lsn'))[0].lsn,
  };
}
