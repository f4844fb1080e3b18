import { Injectable } from '@nestjs/common';

/** A piece of sandbox state that survives restarts: what to write down, and how to take it back. */
export interface PersistentPart {
  /** Unique among the parts: the key of its entry in the state file. */
  name: string;
  save(): unknown;
  load(saved: unknown): void;
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

  /** Called after every reset (the state file writes the cleared state at once). */
  onReset(listener: () => void): void {
    this.afterReset.push(listener);
  }

  resetAll(): void {
    for (const reset of this.resets) reset();
    for (const listener of this.afterReset) listener();
  }
}
