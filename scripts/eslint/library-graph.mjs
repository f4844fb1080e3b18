// The import graph between libraries, read from the source, so that the allow-lists written down in
// scripts/eslint/import-rules.mjs can be checked against the tree (test/import-boundaries.e2e-spec.ts) and printed
// when they have to change: `node scripts/eslint/library-graph.mjs`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// Static imports and re-exports (`from '…'`, bare `import '…'`) and dynamic `import('…')`.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** Every module specifier a source text names. */
export function specifiersOf(source) {
  return [...source.matchAll(SPECIFIER)].map((match) => match[1]);
}

/**
 * The library a repository path belongs to: `domain/<context>` under libs/domain, `<name>` for the
 * other libraries, undefined outside libs/.
 */
export function libraryOf(path) {
  const parts = path.split(sep).join('/').split('/');
  if (parts[0] !== 'libs' || parts.length < 3) return undefined;
  if (parts[1] === 'domain') return parts.length >= 4 ? `domain/${parts[2]}` : undefined;
  return parts[1];
}

/** The library a specifier written in `fromPath` reaches, or undefined for packages and builtins. */
export function libraryImportedBy(fromPath, specifier) {
  if (specifier.startsWith('#libs/')) return specifier.slice('#libs/'.length).replace(/\/src\/.*$/, '');
  if (specifier.startsWith('.')) return libraryOf(join(dirname(fromPath), specifier));
  return undefined;
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated' && entry.name !== 'node_modules') yield* sourceFiles(path);
    } else if (/\.(ts|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      yield path;
    }
  }
}

const isSpec = (path) => /\.(e2e-)?spec\.ts$/.test(path);

/**
 * library -> sorted libraries it imports, for every library under libs/ (self-imports left out).
 * Specs are counted unless `withSpecs` is false: the lint applies to them as well.
 */
export function libraryGraph({ root = ROOT, withSpecs = true } = {}) {
  const graph = {};
  for (const file of sourceFiles(join(root, 'libs'))) {
    const path = relative(root, file);
    const from = libraryOf(path);
    if (!from) continue;
    graph[from] ??= new Set();
    if (!withSpecs && isSpec(path)) continue;
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      const to = libraryImportedBy(path, specifier);
      if (to && to !== from) graph[from].add(to);
    }
  }
  return Object.fromEntries(
    Object.keys(graph)
      .sort()
      .map((library) => [library, [...graph[library]].sort()]),
  );
}

/** One cycle of `graph` (node -> neighbours) as a path that ends where it starts, or undefined. */
export function findCycle(graph) {
  const state = new Map(); // node -> 'open' while on the stack, 'done' after
  const stack = [];
  const visit = (node) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph[node] ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of Object.keys(graph)) {
    if (!state.has(node)) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = libraryGraph({ withSpecs: !process.argv.includes('--no-specs') });
  for (const [library, imports] of Object.entries(graph)) console.log(`${library}: ${imports.join(', ')}`);
  // Checked without the specs' imports: libs/testing, which only specs import, sits above everything and
  // imports what it tests, so a spec's edge to it is no dependency of the library's code.
  const cycle = findCycle(libraryGraph({ withSpecs: false }));
  console.log(cycle ? `cycle: ${cycle.join(' -> ')}` : 'acyclic (specs aside)');
}
