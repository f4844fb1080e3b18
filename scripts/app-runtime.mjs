// How the apps run outside Docker (`npm start`, the bench): the environment the Dockerfile gives them too.
// Why: "Memory" in docs/operations.md.

/** glibc gives blocks from 128 KiB up (the api's 200 KB /live pages and answers) back when freed. */
export const APP_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };
