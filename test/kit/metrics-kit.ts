import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';

/** One sample of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  samples: Sample[];
  /** Every metric family named (# HELP / # TYPE), with a histogram's `_bucket`, `_sum` and `_count`. */
  names: Set<string>;
  text: string;
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The Prometheus text format (version 0.0.4), as prom-client writes it. */
export function parseExposition(text: string): Scrape {
  const samples: Sample[] = [];
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      names.add(type[1]);
      if (type[2] === 'histogram' || type[2] === 'summary')
        for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${type[1]}${suffix}`);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
    names.add(match[1]);
  }
  return { samples, names, text };
}

export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${text}`);
  if (!(response.headers.get('content-type') ?? '').startsWith('text/plain'))
    throw new Error(`GET ${url}: content-type ${response.headers.get('content-type')}`);
  return parseExposition(text);
}

/** The samples of `name` whose labels include `labels`. */
export function samplesOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): Sample[] {
  return scrape.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
}

/** The one sample of `name` with `labels` (and any others), or undefined when there is none. */
export function valueOf(
  scrape: Scrape,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samplesOf(scrape, name, labels);
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value;
}

// ---- the repository's dashboard and alert rules ---------------------------------------------------------

export const OBSERVABILITY_DIR = new URL('../../docs/observability/', import.meta.url);

/** PromQL words that are not metric names: functions, aggregations, keywords. */
const PROMQL_WORDS = new Set(
  `sum min max avg count stddev stdvar topk bottomk quantile count_values group by without on ignoring
  group_left group_right bool and or unless offset rate irate increase delta idelta deriv histogram_quantile
  clamp_min clamp_max clamp abs ceil floor round sort sort_desc time vector scalar absent absent_over_time
  max_over_time min_over_time avg_over_time sum_over_time count_over_time last_over_time label_replace
  label_join changes resets inf nan le`.split(/\s+/),
);

/**
 * The metric names an expression reads: identifiers outside label matchers and `by (…)`/`on (…)` lists,
 * not PromQL's own words, not durations; `$__rate_interval` and other Grafana variables are dropped first.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/\$\{?__?[a-zA-Z_]+\}?/g, '5m')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  const names = new Set<string>();
  for (const [word] of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    if (!PROMQL_WORDS.has(word)) names.add(word);
  }
  return [...names];
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(): AlertRule[] {
  const file = load(readFileSync(new URL('alert-rules.yml', OBSERVABILITY_DIR), 'utf8')) as {
    groups: { rules: AlertRule[] }[];
  };
  return file.groups.flatMap((group) => group.rules);
}

/** Every PromQL expression of the Grafana dashboard's panels (rows' panels included). */
export function dashboardExpressions(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(
    readFileSync(new URL('grafana-dashboard.json', OBSERVABILITY_DIR), 'utf8'),
  ) as {
    panels: { title: string; targets?: { expr: string }[]; panels?: unknown[] }[];
  };
  const panels = dashboard.panels.flatMap((p) => [p, ...((p.panels ?? []) as typeof dashboard.panels)]);
  return panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
}
