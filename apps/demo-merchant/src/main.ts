import { ConfigValidationError, loadConfig } from '#libs/config';
import { createDemoServer } from './demo-server.js';

/** The demo merchant app (`npm start` runs it): the page a person opens to see the BFF at work. */
async function main() {
  const config = loadConfig();
  if (!config.demoMerchantApiKey) {
    console.error('The demo app needs DEMO_MERCHANT_API_KEY: it is the demo merchant.');
    process.exit(1);
  }
  const app = createDemoServer({ apiUrl: config.api.publicUrl, merchantApiKey: config.demoMerchantApiKey });
  await app.listen({ host: config.api.host, port: config.demo.port });
  const url = config.demo.publicUrl ?? `http://localhost:${config.demo.port}`;
  console.log(JSON.stringify({ level: 'info', app: 'demo', msg: 'demo listening', url }));
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});
