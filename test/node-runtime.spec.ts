import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import {
  fetchRuntime,
  lowestSupported,
  pinnedFor,
  resolveRuntime,
  runtimePackages,
  systemNode,
} from '../scripts/node-runtime.mjs';

/**
 * The Node every command runs on is pinned through the registry, one package per platform
 * (scripts/node-runtime.mjs). What must hold: each supported platform has one, every pinned version is one
 * every installed package accepts, the image's Node has the same major, and the tests themselves run on it.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const lock: { packages: Record<string, { engines?: { node?: string } }> } = JSON.parse(
  readFileSync(join(ROOT, 'package-lock.json'), 'utf8'),
);
const PLATFORMS = [
  ['linux', 'x64'],
  ['linux', 'arm64'],
  ['darwin', 'x64'],
  ['darwin', 'arm64'],
] as const;
const lowest = lowestSupported(ROOT);
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

describe('the pinned Node.js runtime', () => {
  it('pins exactly one runtime per supported platform, each of the supported major and at least engines.node', () => {
    for (const [platform, arch] of PLATFORMS) {
      const matching = runtimePackages(lock).filter((p) => p.os.includes(platform) && p.cpu.includes(arch));
      expect(
        matching.map((p) => p.name),
        `${platform}-${arch}`,
      ).toHaveLength(1);
      const pinned = pinnedFor(lock, platform, arch)!;
      expect(semver.gte(pinned.version, lowest.join('.')), `${pinned.name}@${pinned.version}`).toBe(true);
      expect(major(pinned.version), `${pinned.name}@${pinned.version}`).toBe(lowest[0]);
    }
  });

  it("runs on a version every installed package's engines.node accepts, on every platform", () => {
    const refusals: string[] = [];
    for (const pinned of runtimePackages(lock)) {
      for (const [path, entry] of Object.entries(lock.packages)) {
        const range = entry.engines?.node;
        if (path && range && !semver.satisfies(pinned.version, range)) {
          refusals.push(`${path} (node ${range}) refuses ${pinned.name}@${pinned.version}`);
        }
      }
    }
    expect(refusals).toEqual([]);
  });

  it('builds and runs the image on the version pinned for Linux, not a floating tag', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const images = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    const linux = runtimePackages(lock).find((p) => p.os.includes('linux') && p.cpu.includes('x64'));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toBe(`node:${linux?.version}-bookworm-slim`);
  });

  it("tells in the README each platform's pinned version where they differ", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const said = {
      linux: /([\d.]+) on Linux/,
      'darwin-x64': /([\d.]+) for Intel Macs/,
      'darwin-arm64': /([\d.]+) for Apple silicon/,
    };
    for (const [platform, arch] of PLATFORMS) {
      const pattern = platform === 'linux' ? said.linux : said[`darwin-${arch}`];
      expect(pattern.exec(readme)?.[1], `${platform}-${arch}`).toBe(pinnedFor(lock, platform, arch)?.version);
    }
  });

  it('is what this test runs on', () => {
    // npm test runs vitest on the runtime (NODE_RUNTIME=system: the machine's own Node).
    const runtime = resolveRuntime(ROOT);
    expect(process.version).toBe(runtime.version);
  });

  it("takes the registry's package only when its integrity is the lock file's", () => {
    const pinned = pinnedFor(lock)!;
    const fetched = fetchRuntime(pinned, () => undefined);
    try {
      expect(execFileSync(fetched.binary, ['--version'], { encoding: 'utf8' }).trim()).toBe(
        `v${pinned.version}`,
      );
    } finally {
      fetched.remove();
    }
    const other = runtimePackages(lock).find((p) => p.integrity !== pinned.integrity)!;
    expect(() => fetchRuntime({ ...pinned, integrity: other.integrity }, () => undefined)).toThrow(
      /integrity .* not the lock file's/,
    );
  });

  it("runs a command begun on the machine's own Node again on the runtime, passing its exit status", () => {
    const own = systemNode(process.env.PATH);
    expect(own, 'a node on PATH outside node_modules').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'bff-runtime-'));
    try {
      const script = join(dir, 'probe.mjs');
      writeFileSync(
        script,
        [
          `import { ensureRuntime, resolveRuntime } from ${JSON.stringify(pathToFileURL(join(ROOT, 'scripts/node-runtime.mjs')).href)};`,
          `const root = ${JSON.stringify(ROOT)};`,
          'await ensureRuntime(root, resolveRuntime(root), () => undefined);',
          "console.log(process.version, process.argv.slice(2).join(' '));",
          'process.exit(7);',
        ].join('\n'),
      );
      const result = spawnSync(own!, [script, 'a', 'b c'], { encoding: 'utf8', env: process.env });
      expect(result.stdout.trim()).toBe(`${resolveRuntime(ROOT).version} a b c`);
      expect(result.status).toBe(7);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
