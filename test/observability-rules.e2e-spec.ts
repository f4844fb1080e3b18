import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { alertRules, dashboardExpressions, metricNamesIn, OBSERVABILITY_DIR } from './kit/metrics-kit.js';

const ROOT = new URL('../', import.meta.url);
const file = (name: string) => fileURLToPath(new URL(name, OBSERVABILITY_DIR));
const yaml = (path: URL | string) =>
  load(readFileSync(path, 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as any;

/** Debian's `prometheus` package provides it; `npm test` installs it when missing, as it does Chromium. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8' });
  if (run.error) {
    throw new Error(
      `promtool cannot run (${run.error.message}): npm test installs it, or apt-get install prometheus`,
    );
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** GitHub's anchor of a Markdown heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('the alert rules', () => {
  const rules = alertRules();

  it('pass promtool check rules', () => {
    const checked = promtool('check', 'rules', file('alert-rules.yml'));
    expect(checked.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(checked.status).toBe(0);
  });

  it('fire when they should and not when they should not: promtool test rules', () => {
    const tested = promtool('test', 'rules', file('alert-rules.test.yml'));
    expect(tested.status, tested.output).toBe(0);
    expect(tested.output).toContain('SUCCESS');
  });

  it('each with a wait, a severity, a summary and a runbook in docs/observability.md', () => {
    const headings = new Set(
      readFileSync(new URL('docs/observability.md', ROOT), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('#'))
        .map((line) => slug(line.replace(/^#+/, ''))),
    );
    expect(rules.length).toBeGreaterThanOrEqual(6);
    for (const rule of rules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[mh]$/);
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.runbook, rule.alert).toBe(`docs/observability.md#${rule.alert.toLowerCase()}`);
      expect(headings.has(rule.alert.toLowerCase()), `a heading ${rule.alert} in docs/observability.md`).toBe(
        true,
      );
    }
  });

  it('each proven to fire by a unit test, and held back by one', () => {
    const tests = yaml(file('alert-rules.test.yml')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    for (const { alert } of rules) {
      const own = cases.filter((c) => c.alertname === alert);
      expect(
        own.some((c) => c.exp_alerts.length > 0),
        `${alert} fires in a test`,
      ).toBe(true);
      expect(
        own.some((c) => c.exp_alerts.length === 0),
        `${alert} held back in a test`,
      ).toBe(true);
    }
  });
});

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(file('grafana-dashboard.json'), 'utf8'));

  it('is a Grafana 10 dashboard on a Prometheus datasource variable', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const panels = dashboard.panels as any[];
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const panel of panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      if (panel.type === 'row') continue;
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) expect(target.datasource).toEqual(panel.datasource);
    }
  });

  it('reads metrics by name (their existence is checked against real scrapes in metrics-domain)', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (le, route) (rate(http_request_duration_seconds_bucket{app="api",status=~"5.."}[$__rate_interval])))',
      ),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(metricNamesIn('max(bff_a) - max(bff_b{le="28800"}) and on () max(bff_c{state="x"}) >= 3')).toEqual(
      ['bff_a', 'bff_b', 'bff_c'],
    );
    const read = new Set(dashboardExpressions().flatMap(({ expr }) => metricNamesIn(expr)));
    for (const rule of alertRules()) {
      for (const name of metricNamesIn(rule.expr))
        expect(read.has(name), `dashboard shows ${name}`).toBe(true);
    }
  });
});

describe('the observability profile of docker-compose.yml', () => {
  const compose = yaml(new URL('docker-compose.yml', ROOT));
  const services = compose.services as Record<string, any>;

  it('runs a collector, Jaeger, Prometheus and Grafana, with files that exist', () => {
    for (const name of ['otel-collector', 'jaeger', 'prometheus', 'grafana']) {
      expect(services[name]?.profiles, name).toEqual(['observability']);
      for (const volume of (services[name].volumes ?? []) as string[]) {
        const source = volume.split(':')[0];
        expect(existsSync(new URL(source, ROOT)), `${name}: ${source}`).toBe(true);
      }
    }
    for (const app of ['api', 'worker', 'sandbox']) {
      expect(services[app].environment.OTEL_EXPORTER_OTLP_ENDPOINT, app).toBeDefined();
      expect(services[app].environment.DATABASE_URL, `${app} keeps the shared settings`).toBeDefined();
    }
  });

  it('scrapes the api and the worker where compose runs them, with the rules loaded', () => {
    const config = yaml(file('prometheus.yml'));
    const targets = (config.scrape_configs as any[]).flatMap((job) =>
      job.static_configs.flatMap((c: { targets: string[] }) => c.targets),
    );
    expect(targets).toEqual([
      `api:${services.api.environment.API_PORT}`,
      `worker:${services.worker.environment.WORKER_METRICS_PORT}`,
    ]);
    expect(services.worker.environment.WORKER_METRICS_HOST).toBe('0.0.0.0');
    const checked = promtool('check', 'config', file('prometheus.yml'));
    expect(checked.status, checked.output).toBe(0);
  });

  it('sends traces from OTLP over HTTP to Jaeger, and provisions Grafana with both', () => {
    const collector = yaml(file('otel-collector.yml'));
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    const pipeline = collector.service.pipelines.traces;
    for (const receiver of pipeline.receivers) expect(collector.receivers).toHaveProperty(receiver);
    for (const exporter of pipeline.exporters) {
      const endpoint = collector.exporters[exporter].endpoint as string;
      expect(services).toHaveProperty(endpoint.split(':')[0]);
    }
    const datasources = yaml(file('grafana-datasources.yml')).datasources as { url: string }[];
    for (const { url } of datasources) expect(services).toHaveProperty(new URL(url).hostname);
  });
});
