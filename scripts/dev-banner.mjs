// What `npm start` (scripts/dev.mjs) prints once every app answers. Node built-ins only, as dev.mjs.
import { probeHost } from './dev-probes.mjs';
import { paint } from './dev-steps.mjs';

/** What `npm start` says once everything answers: where each part is, and the credentials to use. */
export function runningBanner(config, { demoUrl, runtime, overrides }) {
  return [
    '',
    demoUrl
      ? paint('1;32', `  Open the demo: ${demoUrl}`)
      : '  (no demo app: DEMO_MERCHANT_API_KEY is empty)',
    '',
    paint('1;32', '  The open-banking BFF is running.'),
    '',
    `  node      ${process.version}   (${runtime})`,
    `  api       ${config.apiUrl}   (ready: ${config.apiUrl}/health/ready, metrics: ${config.apiUrl}/metrics)`,
    `  console   ${config.apiUrl}/console/   (sign in with an API key or the operator token)`,
    `  sandbox   ${config.sandboxUrl}   (the offline upstream)`,
    `  worker    consuming BullMQ queues with prefix "{${config.queuePrefix}}"; queues at ${config.apiUrl}/admin/queues (opened by the console's operator session, or user operator, password the operator token)`,
    config.workerMetricsPort > 0
      ? `            metrics: http://${probeHost(config.workerMetricsHost)}:${config.workerMetricsPort}/metrics`
      : '            (no metrics: WORKER_METRICS_PORT is 0)',
    '',
    ...credentialLines(config),
    '  docs:                   README.md, docs/ and the live OpenAPI at ' + `${config.apiUrl}/docs`,
    ...(overrides ? ['', paint('1;33', overrides)] : []),
    '',
    '  Ctrl-C stops everything this command started.',
    '',
  ];
}

function credentialLines(config) {
  return [
    config.demoMerchantApiKey
      ? `  demo merchant API key:  ${paint('1', config.demoMerchantApiKey)}`
      : '  (no demo merchant: DEMO_MERCHANT_API_KEY is empty)',
    config.operatorToken
      ? `  operator token:         ${paint('1', config.operatorToken)}   (ADMIN_TOKEN)`
      : '  operator token:         ADMIN_TOKEN from your environment',
    config.sandboxAdminToken
      ? `  sandbox control token:  ${config.sandboxAdminToken}   (SANDBOX_ADMIN_TOKEN, for ${config.sandboxUrl}/sandbox/admin)`
      : '',
    config.sandboxDataDir
      ? `  sandbox state:          ${config.sandboxDataDir}   (POST /sandbox/admin/reset clears it)`
      : '',
  ];
}
