import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { MigrationSource } from '#libs/database';

// What a release is (prisma/releases.json, the one source): a commit of this repository. Its migrations are
// the ones in that commit's prisma/migrations, read from git; this release's window is every migration
// of the working tree that the previous release did not have.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Release {
  name: string;
  commit: string;
}

export function readReleases(): Release[] {
  const file = JSON.parse(readFileSync(join(ROOT, 'prisma', 'releases.json'), 'utf8')) as {
    releases: Release[];
  };
  return file.releases;
}

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/**
 * Fails, never skips, when the commit is not in this clone: a shallow clone (CI's default depth of 1)
 * lacks it, and the upgrade would then be tested against nothing.
 */
export function requireCommit(release: Release): void {
  try {
    git('cat-file', '-e', `${release.commit}^{commit}`);
  } catch {
    throw new Error(
      `release ${release.name} (prisma/releases.json) is commit ${release.commit}, which this clone does not ` +
        'have: fetch the full history (git fetch --unshallow) to test the upgrade from it',
    );
  }
}

export interface ReleaseWindow {
  previous: Release;
  /** The previous release's migrations, as that commit has them. */
  released: MigrationSource[];
  /** The working tree's migrations the previous release does not have, in the order they apply. */
  window: MigrationSource[];
  /** Released migrations that the working tree changed or removed: the migrator would refuse them. */
  changed: string[];
}

const migrationsDir = join(ROOT, 'prisma', 'migrations');

export function releaseWindow(): ReleaseWindow {
  const releases = readReleases();
  const previous = releases.at(-1)!;
  requireCommit(previous);
  // `<mode> blob <hash>\tprisma/migrations/<name>/migration.sql`, one line each.
  const blobs = new Map(
    git('ls-tree', '-r', previous.commit, '--', 'prisma/migrations/')
      .split('\n')
      .map((line) => /^\S+ blob (\S+)\tprisma\/migrations\/([^/]+)\/migration\.sql$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[2], m[1]] as const),
  );
  const names = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const current = names.length
    ? git('hash-object', ...names.map((n) => join(migrationsDir, n, 'migration.sql')))
        .trim()
        .split('\n')
    : [];
  const hashOf = new Map(names.map((n, i) => [n, current[i]]));
  const changed = [...blobs].filter(([name, blob]) => hashOf.get(name) !== blob).map(([name]) => name);
  const released = [...blobs.keys()]
    .sort()
    .map((name) => ({ name, sql: git('cat-file', 'blob', blobs.get(name)!) }));
  const window = names
    .filter((name) => !blobs.has(name))
    .map((name) => ({ name, sql: readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8') }));
  return { previous, released, window, changed };
}

export interface BuiltRelease {
  /** Its checkout, with its own dist/ and prisma/migrations. */
  root: string;
  /** Seconds its build took, or 0 when an earlier run's build was reused. */
  buildSeconds: number;
  /**
   * Whether its package-lock.json is this checkout's. It runs on this checkout's node_modules either way
   * (installing its own would take minutes and the registry): a difference is reported, to be weighed.
   */
  sameDependencies: boolean;
}

/**
 * The release's code as it was, built as npm test builds this checkout: extracted from git, the Prisma
 * client generated from its own schema, then tsc, on this checkout's node_modules (a symlink). Kept under
 * .dev/releases/<commit>, so only a first run pays for the build.
 */
export async function buildRelease(release: Release): Promise<BuiltRelease> {
  requireCommit(release);
  const root = join(ROOT, '.dev', 'releases', release.commit);
  const done = join(root, '.built');
  const sameDependencies =
    git('show', `${release.commit}:package-lock.json`) ===
    readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
  if (existsSync(done)) return { root, buildSeconds: 0, sameDependencies };
  const started = Date.now();
  // A build cut short leaves no `.built`: start it again from nothing.
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const archive = join(root, '..', `${release.commit}.tar`);
  // Asynchronous: tsc takes most of a minute, while the test worker should go on answering vitest.
  const run = (file: string, args: string[], env?: NodeJS.ProcessEnv) =>
    promisify(execFile)(file, args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
  await run('git', ['-C', ROOT, 'archive', '--format=tar', '-o', archive, release.commit]);
  await run('tar', ['-xf', archive, '-C', root]);
  rmSync(archive);
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
  // The CLI looks for its native schema engine even for `generate`, which never runs it (scripts/dev.mjs).
  await run(bin('prisma'), ['generate'], {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  });
  await run(bin('tsc'), ['-p', 'tsconfig.build.json']);
  writeFileSync(done, new Date().toISOString());
  return { root, buildSeconds: Math.round((Date.now() - started) / 100) / 10, sameDependencies };
}

/** Migrations that only tests apply: one expansion and one contraction, kept out of prisma/migrations. */
export const MIGRATION_FIXTURES = fileURLToPath(new URL('../fixtures/migrations/', import.meta.url));
/** Each statement of a kind the expand/contract rule allows. */
export const EXPAND_FIXTURE = '99990101000000_upgrade_expand';
/** A rename of a column the previous release reads: refused by the rule, and fatal to that release. */
export const CONTRACT_FIXTURE = '99990101000001_upgrade_contract';

export const fixtureMigration = (name: string): MigrationSource => ({
  name,
  sql: readFileSync(join(MIGRATION_FIXTURES, name, 'migration.sql'), 'utf8'),
});
