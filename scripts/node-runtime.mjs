// Which Node.js runs the project's commands, and how a machine gets it (README, "Quick start").
//
// The runtime is pinned like any binary tool: one registry package per platform holding Node's own
// binary, listed in package.json's optionalDependencies (npm installs only the one whose `os` and `cpu`
// match, as esbuild ships its binaries; no install script) and locked with its integrity in
// package-lock.json. npm links it as node_modules/.bin/node, which npm puts first on every script's PATH,
// so every `npm run …` runs on it. `NODE_RUNTIME=system` runs everything on the `node` of your PATH instead.
//
// The first command on a fresh clone runs on whatever Node the machine has; it installs the dependencies
// with npm running on the pinned runtime (so npm checks their `engines` against the Node they will run
// on) and starts itself again on it. Node built-ins only, and nothing newer than Node 18 has, for that
// first run. Kept whole: choosing the runtime, fetching it and starting again on it are one chain, walked
// by that first run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** `NODE_RUNTIME`'s values: the pinned package (the default) or the machine's own `node`. */
export const RUNTIME_CHOICES = ['pinned', 'system'];

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const lockOf = (root) => readJson(join(root, 'package-lock.json'));
const listed = (field) => (field === undefined ? [] : [field].flat());

/**
 * The runtime packages the lock file pins, one per platform: the root's optional dependencies whose
 * package provides a `node` binary.
 */
export function runtimePackages(lock) {
  const optional = lock.packages[''].optionalDependencies ?? {};
  return Object.keys(optional)
    .map((name) => ({ name, entry: lock.packages[`node_modules/${name}`] }))
    .filter(({ entry }) => entry?.bin?.node)
    .map(({ name, entry }) => ({
      name,
      version: entry.version,
      integrity: entry.integrity,
      os: listed(entry.os),
      cpu: listed(entry.cpu),
      binary: entry.bin.node,
    }));
}

/** The pinned runtime for `platform` and `arch`, or undefined when none is pinned for them. */
export function pinnedFor(lock, platform = process.platform, arch = process.arch) {
  return runtimePackages(lock).find((p) => p.os.includes(platform) && p.cpu.includes(arch));
}

/** The lowest version package.json's `engines.node` (always `>=X.Y.Z`) accepts, as [X, Y, Z]. */
export function lowestSupported(root) {
  const range = readJson(join(root, 'package.json')).engines.node;
  const match = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!match) throw new Error(`package.json engines.node must read ">=X.Y.Z", not "${range}"`);
  return match.slice(1).map(Number);
}

/** Whether `version` (`v24.1.0` or `24.1.0`) is at least `lowest` ([X, Y, Z]). */
export function atLeast(version, lowest) {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if (parts[i] !== lowest[i]) return parts[i] > lowest[i];
  return true;
}

/** The first `node` on PATH outside any node_modules/.bin: the machine's own. */
export function systemNode(path = process.env.PATH ?? '') {
  for (const dir of path.split(delimiter)) {
    if (!dir || dir.split(/[\\/]/).includes('node_modules')) continue;
    const candidate = join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    if (existsSync(candidate)) return realpathSync(candidate);
  }
  return undefined;
}

const versionOf = (binary) =>
  execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/**
 * What runs this project on this machine: `{ kind, binary, version, label }`. Throws, saying what to do,
 * when there is nothing it may run on.
 */
export function resolveRuntime(root, env = process.env) {
  const choice = env.NODE_RUNTIME || 'pinned';
  if (!RUNTIME_CHOICES.includes(choice)) {
    throw new Error(`NODE_RUNTIME must be one of ${RUNTIME_CHOICES.join(', ')}, not "${choice}"`);
  }
  const lowest = lowestSupported(root).join('.');
  if (choice === 'system') {
    const binary = systemNode(env.PATH);
    if (!binary) throw new Error('NODE_RUNTIME=system, but there is no node on PATH');
    const version = versionOf(binary);
    if (!atLeast(version, lowestSupported(root))) {
      throw new Error(
        `NODE_RUNTIME=system: ${binary} is Node ${version}; this project needs ${lowest} or later`,
      );
    }
    return { kind: 'system', binary, version, label: `${binary}, NODE_RUNTIME=system` };
  }
  const pinned = pinnedFor(lockOf(root));
  if (!pinned) {
    throw new Error(
      `No Node.js runtime is pinned for ${process.platform}-${process.arch}: install Node ${lowest} or later and run with NODE_RUNTIME=system`,
    );
  }
  return {
    kind: 'pinned',
    binary: join(root, 'node_modules', pinned.name, pinned.binary),
    version: `v${pinned.version}`,
    label: `${pinned.name}@${pinned.version}, pinned in package.json`,
    pinned,
  };
}

/** Whether this very process is `runtime`. */
export function isRunning(runtime) {
  if (process.version !== runtime.version) return false;
  return runtime.kind === 'pinned' || realpathSync(process.execPath) === runtime.binary;
}

/** Whether `runtime`'s binary is on disk at its version (a pinned one is only after `npm ci`). */
function isInstalled(root, runtime) {
  if (runtime.kind === 'system') return true;
  const manifest = join(root, 'node_modules', runtime.pinned.name, 'package.json');
  return (
    existsSync(runtime.binary) &&
    existsSync(manifest) &&
    readJson(manifest).version === runtime.pinned.version
  );
}

/** npm's own entry point, to run it on a Node of our choosing; undefined when it cannot be found. */
function npmCli() {
  if (process.env.npm_execpath?.endsWith('.js')) return process.env.npm_execpath;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = dir && join(dir, 'npm');
    if (candidate && existsSync(candidate)) {
      const real = realpathSync(candidate);
      return real.endsWith('.js') ? real : undefined;
    }
  }
  return undefined;
}

const withPathFirst = (dir, env = process.env) => ({ ...env, PATH: `${dir}${delimiter}${env.PATH ?? ''}` });
const sha = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex');

/**
 * `npm ci` run by `node` (its install scripts too), unless the tree was installed from this lock file by
 * this runtime already. With the system runtime, the pinned one's `.bin/node` link goes, so npm scripts
 * find the system's `node`. Returns whether it installed; throws when npm fails.
 */
export function installDependencies(root, runtime, node = runtime.binary, say = console.log) {
  const stampFile = join(root, 'node_modules', '.bff-install-stamp');
  const wanted = sha(readFileSync(join(root, 'package-lock.json'), 'utf8'), runtime.kind, runtime.version);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted) return false;
  say(`Installing dependencies (npm ci, on Node ${runtime.version})`);
  const cli = npmCli();
  const args = ['ci', '--no-audit', '--no-fund', '--loglevel=error'];
  const env = withPathFirst(dirname(node));
  const result = cli
    ? spawnSync(node, [cli, ...args], { cwd: root, stdio: 'inherit', env })
    : spawnSync('npm', args, { cwd: root, stdio: 'inherit', env, shell: process.platform === 'win32' });
  if (result.error) throw result.error;
  if (result.signal) throw Object.assign(new Error(`npm ci: ${result.signal}`), { signal: result.signal });
  if (result.status !== 0) throw new Error(`npm ci exited with ${result.status}`);
  if (runtime.kind === 'system') rmSync(join(root, 'node_modules', '.bin', 'node'), { force: true });
  writeFileSync(stampFile, wanted);
  return true;
}

/**
 * The pinned runtime's package fetched from the registry (npm's cache when it has it) into a temporary
 * folder, refused unless its integrity is the lock file's. Returns the binary and a function to remove it.
 */
export function fetchRuntime(pinned, say = console.log) {
  say(`Fetching Node ${pinned.version} (${pinned.name}) to install with`);
  const dir = mkdtempSync(join(tmpdir(), 'bff-node-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const out = execFileSync(
      'npm',
      ['pack', `${pinned.name}@${pinned.version}`, '--json', '--pack-destination', dir, '--loglevel=error'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32' },
    );
    const [packed] = JSON.parse(out);
    if (packed.integrity !== pinned.integrity) {
      throw new Error(
        `${pinned.name}@${pinned.version} from the registry has integrity ${packed.integrity}, not the lock file's ${pinned.integrity}`,
      );
    }
    execFileSync('tar', ['-xzf', join(dir, packed.filename), '-C', dir], { stdio: 'inherit' });
    const binary = join(dir, 'package', pinned.binary);
    const version = versionOf(binary);
    if (version !== `v${pinned.version}`)
      throw new Error(`${binary} says ${version}, not v${pinned.version}`);
    return { binary, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Makes sure this process is `runtime`: when it is not, installs the dependencies with it (fetching the
 * pinned one first on a fresh clone) and runs this same command again on it, with its folder first on
 * PATH, then exits as that did. Returns only in the right runtime.
 */
export async function ensureRuntime(root, runtime, say = console.log) {
  if (isRunning(runtime)) return;
  if (!isInstalled(root, runtime)) {
    const fetched = fetchRuntime(runtime.pinned, say);
    try {
      installDependencies(root, runtime, fetched.binary, say);
    } finally {
      fetched.remove();
    }
  }
  const binDir = runtime.kind === 'pinned' ? join(root, 'node_modules', '.bin') : dirname(runtime.binary);
  const child = spawn(runtime.binary, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: withPathFirst(binDir),
  });
  // A terminal's Ctrl-C reaches the child itself (the same process group): the child decides, this waits.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`${runtime.binary}: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (status, signal) => resolve(status ?? (signal === 'SIGINT' ? 130 : 1)));
  });
  process.exit(code);
}

/** Removes the pinned runtimes from node_modules: the image runs on its base image's Node. */
export function dropRuntimes(root) {
  for (const { name } of runtimePackages(lockOf(root))) {
    rmSync(join(root, 'node_modules', name), { recursive: true, force: true });
  }
  rmSync(join(root, 'node_modules', '.bin', 'node'), { force: true });
}

// `node scripts/node-runtime.mjs drop` (the Dockerfile) | `… which` (what runs the project here).
if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const command = process.argv[2];
  if (command === 'drop') dropRuntimes(root);
  else if (command === 'which') {
    const runtime = resolveRuntime(root);
    console.log(`Node ${runtime.version} (${runtime.label})`);
  } else {
    console.error('usage: node scripts/node-runtime.mjs drop|which');
    process.exit(2);
  }
}
