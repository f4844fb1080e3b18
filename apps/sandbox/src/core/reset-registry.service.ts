import { Injectable } from '@nestjs/common';

/** A piece of sandbox state that survives restarts: what to write down, and how to take it back. */
export interface PersistentPart {
  /** Unique among the parts: the key of its entry in the state file. */
  name: string;
  save(): unknown;
  load(saved: unknown): void;
}

function emptied<T extends Record<string, Map<unknown, unknown>>>(maps: T): T {
  return Object.fromEntries(Object.keys(maps).map((key) => [key, new Map()])) as T;
}

/**
 * Every piece of in-memory sandbox state registers how to return to the seeded state, so
 * `POST /sandbox/admin/reset` needs to know nothing about the modules; the state that a restart must keep
 * (see SandboxStateFile) registers how to save and load it too.
 */
@Injectable()
export class ResetRegistryService {
  private readonly resets: (() => void)[] = [];
  readonly parts: PersistentPart[] = [];
  private readonly afterReset: (() => void)[] = [];

  register(reset: () => void, part?: PersistentPart): void {
    this.resets.push(reset);
    if (part) {
      if (this.parts.some((p) => p.name === part.name)) throw new Error(`state part ${part.name} twice`);
      this.parts.push(part);
    }
  }

  /**
   * A part whose state is a few Maps, saved together under `name`: a reset hands `set` new empty Maps
   * and a load hands it the saved ones, so the part says once which Maps it keeps.
   */
  registerMaps<T extends Record<string, Map<unknown, unknown>>>(
    name: string,
    get: () => T,
    set: (maps: T) => void,
  ): void {
    this.register(() => set(emptied(get())), { name, save: get, load: (saved) => set(saved as T) });
  }

  /** Called after every reset (the state file writes the cleared state at once). */
  onReset(listener: () => void): void {
    this.afterReset.push(listener);
  }

  resetAll(): void {
    for (const reset of this.resets) reset();
    for (const listener of this.afterReset) listener();
  }
}
