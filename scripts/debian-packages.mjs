// Debian packages the tests and the failover soak need, installed without their services. Packages such as
// prometheus, pgbouncer or redis-sentinel ship a server that Debian enables at boot and starts on its
// standard port; the tests only want a tool (promtool) or run their own servers on private ports, so a
// laptop must not be left with a Prometheus on :9090. Node built-ins only.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fail, mustRun, ROOT, step } from './dev-steps.mjs';

const POLICY = '/usr/sbin/policy-rc.d';
const UNIT = /^\/(usr\/)?lib\/systemd\/system\/[^/]+\.(service|socket|timer|path)$/;
/** What this checkout's set-up installed, so that a test can hold it to leaving their services off. */
export const INSTALLED_RECORD = join(ROOT, '.dev', 'debian-packages.json');

const installedPackages = () =>
  new Set(
    spawnSync('dpkg-query', ['-W', '-f', '${db:Status-Abbrev} ${Package}\\n'], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((line) => line.startsWith('ii '))
      .map((line) => line.slice(3).trim().split(':')[0]),
  );

/** The systemd units a package ships. */
export function packageUnits(pkg) {
  const files = spawnSync('dpkg-query', ['-L', pkg], { encoding: 'utf8' }).stdout ?? '';
  return files
    .split('\n')
    .filter((file) => UNIT.test(file))
    .map((file) => basename(file));
}

/** Units enabled at boot: a link to them in any of /etc/systemd/system's `.wants`/`.requires` folders. */
export function enabledUnits(units) {
  const root = '/etc/systemd/system';
  if (!existsSync(root)) return [];
  const wanted = new Set();
  for (const folder of readdirSync(root).filter((name) => /\.(wants|requires)$/.test(name))) {
    for (const link of readdirSync(join(root, folder))) {
      try {
        wanted.add(basename(readlinkSync(join(root, folder, link))));
      } catch {
        wanted.add(link); // not a link: a unit file copied in, enabled all the same
      }
    }
  }
  return units.filter((unit) => wanted.has(unit));
}

/** Units systemd reports running (none where systemd is not the init, as in containers). */
export function activeUnits(units) {
  if (!existsSync('/run/systemd/system') || units.length === 0) return [];
  const states = spawnSync('systemctl', ['is-active', ...units], { encoding: 'utf8' }).stdout.split('\n');
  return units.filter((_, i) => states[i] === 'active' || states[i] === 'activating');
}

function withServicesHeld(install) {
  // invoke-rc.d asks policy-rc.d before starting a package's service; 101 means "not now". A policy the
  // machine already has (containers have one) is left as it is.
  const own = !existsSync(POLICY);
  if (own)
    writeFileSync(
      POLICY,
      '#!/bin/sh\n# npm test: no service starts while it installs a package\nexit 101\n',
      { mode: 0o755 },
    );
  try {
    install();
  } finally {
    if (own) rmSync(POLICY, { force: true });
  }
}

function disableUnits(units) {
  if (units.length === 0) return;
  // systemctl disables offline too (it removes the links the install made, SysV scripts' included);
  // --now also stops one that started regardless, where systemd runs.
  const running = existsSync('/run/systemd/system');
  mustRun('systemctl', ['disable', ...(running ? ['--now'] : []), ...units], { stdio: 'ignore' });
}

function record(packages) {
  const previous = existsSync(INSTALLED_RECORD) ? JSON.parse(readFileSync(INSTALLED_RECORD, 'utf8')) : [];
  mkdirSync(dirname(INSTALLED_RECORD), { recursive: true });
  writeFileSync(
    INSTALLED_RECORD,
    JSON.stringify([...new Set([...previous, ...packages])].sort(), null, 2) + '\n',
  );
}

/**
 * A Debian package the tests need, installed when missing (as root on Debian; otherwise a clear message
 * of what to install), with the services of it and of whatever it pulled in neither started nor enabled.
 */
export function ensureDebianPackage(pkg, present, why) {
  if (present()) return;
  step(`Installing ${pkg} (Debian package) for ${why}`);
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    fail(`${why} need Debian's ${pkg} package: apt-get install ${pkg}.`);
  }
  const before = installedPackages();
  mustRun('apt-get', ['update', '-qq']);
  withServicesHeld(() =>
    mustRun('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }),
  );
  const added = [...installedPackages()].filter((name) => !before.has(name));
  const units = added.flatMap(packageUnits);
  disableUnits(units);
  record(added);
  const left = [...new Set([...enabledUnits(units), ...activeUnits(units)])];
  if (left.length > 0)
    fail(`Installing ${pkg} left services on: ${left.join(', ')} (systemctl disable --now them).`);
}
