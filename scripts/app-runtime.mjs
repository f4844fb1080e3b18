// How the apps run outside Docker (`npm start`, the bench): the environment and node flags the Dockerfile
// and docker-compose.yml give them too. Why each one: "Memory" in docs/operations.md.

/** glibc gives blocks from 128 KiB up (the api's 200 KB /live pages and answers) back when freed. */
export const APP_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** Node flags per app; V8's heap sizes can only be set on the command line. */
export const APP_NODE_FLAGS = {
  // A young generation of at most 8 MiB per semi-space instead of 16: V8 keeps it at its high-water mark
  // after a load, and the api's requests leave little that survives it.
  api: ['--max-semi-space-size=8'],
};

/** The node arguments to start `app` (a directory of apps/) from dist/. */
export function appArguments(app, main) {
  return [...(APP_NODE_FLAGS[app] ?? []), main];
}
