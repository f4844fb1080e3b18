// Types of dev-env.mjs for the TypeScript tests.

type Env = Record<string, string | undefined>;

export interface OverriddenDefault {
  name: string;
  /** What the environment holds. */
  value: string;
  /** What the mode would have set. */
  ours: string;
}

export declare function isUnset(value: string | undefined): boolean;
export declare function setDefault(env: Env, name: string, value: string): string;
export declare function modeDefaults(mode: string, root: string): Record<string, string>;
export declare function applyDevDefaults(env: Env, mode: string, root: string): OverriddenDefault[];
export declare function overriddenLine(
  overridden: OverriddenDefault[],
  fromShell?: Set<string>,
): string | null;
export declare function devDefaultNotes(): Record<string, string>;
