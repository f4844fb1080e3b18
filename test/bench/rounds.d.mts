// Types of rounds.mjs for the TypeScript tests: the parts they call.

export const PACE_TOLERANCE: number;

export interface Pace {
  rate: number;
  achievedByRound: number[];
  lowestShare: number;
  tolerance: number;
  held: boolean;
}

export interface RoundsRow {
  key: string;
  rps: number;
  requests: number;
  cpuUsPerRequest: number | null;
  cpuAtRate: number | null;
  pace: Pace | null;
}

export interface RoundsTarget {
  key: string;
  label: string;
  baseUrl: string;
  paths: string[];
  cpu?: () => number;
  cpuRate?: number;
  /** With `--cpu-rate auto`: the targets compared with each other, paced at one rate of their own. */
  paceGroup?: string;
}

export interface RoundsOptions {
  rounds: number;
  durationMs: number;
  warmupMs: number;
  maxRequests: number;
  connections: number;
  cpuRate: number | 'auto';
  smoke?: boolean;
}

export type LoadRun = (kind: 'load' | 'walks', job: object) => Promise<unknown>;

export function measureRounds(
  context: { load: LoadRun; options: RoundsOptions; progress: (message: string) => void },
  targets: RoundsTarget[],
): Promise<RoundsRow[]>;

export function ratioOf(row: RoundsRow, base: RoundsRow): { cpu?: number; rps: number };

/** `--cpu-rate auto`'s rate for targets whose full-speed rows are `rows` (0 when none is held). */
export function autoRate(rows: { rps: number }[]): number;
