import 'reflect-metadata';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { startTracing } from '#libs/observability';

// Tracing starts before the app is imported: instrumentations patch modules as they load, and an ES
// module's static imports all load before its first line runs, so the app comes in by a dynamic import.
async function main() {
  const config = loadConfig();
  const tracing = await startTracing(config.tracing, 'worker');
  const { runWorker } = await import('./worker-process.js');
  await runWorker(config, tracing);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});
