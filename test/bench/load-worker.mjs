// Worker-thread entry of the load generator: one job at a time, asked for by run.mjs over postMessage.
import { parentPort } from 'node:worker_threads';
import { runLoad, runWalks } from './load-generator.mjs';

parentPort.on('message', async ({ id, kind, job }) => {
  try {
    const result = kind === 'walks' ? await runWalks(job) : await runLoad(job);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
