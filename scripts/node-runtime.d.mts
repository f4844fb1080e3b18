// Types of node-runtime.mjs for the TypeScript tests.

export interface RuntimePackage {
  name: string;
  version: string;
  integrity: string;
  os: string[];
  cpu: string[];
  /** The binary's path inside the package. */
  binary: string;
}

export interface Runtime {
  kind: 'pinned' | 'system';
  binary: string;
  /** `v24.1.0` */
  version: string;
  label: string;
  pinned?: RuntimePackage;
}

type Lock = { packages: Record<string, Record<string, unknown>> };

export declare const RUNTIME_CHOICES: readonly string[];
export declare function runtimePackages(lock: Lock): RuntimePackage[];
export declare function pinnedFor(lock: Lock, platform?: string, arch?: string): RuntimePackage | undefined;
export declare function lowestSupported(root: string): [number, number, number];
export declare function atLeast(version: string, lowest: [number, number, number]): boolean;
export declare function systemNode(path?: string): string | undefined;
export declare function resolveRuntime(root: string, env?: Record<string, string | undefined>): Runtime;
export declare function isRunning(runtime: Runtime): boolean;
export declare function fetchRuntime(
  pinned: RuntimePackage,
  say?: (text: string) => void,
): { binary: string; remove: () => void };
