import { Injectable } from '@nestjs/common';

/**
 * Every piece of in-memory sandbox state registers how to return to the seeded state, so
 * `POST /sandbox/admin/reset` needs to know nothing about the modules.
 */
@Injectable()
export class ResetRegistry {
  private readonly resets: (() => void)[] = [];

  register(reset: () => void): void {
    this.resets.push(reset);
  }

  resetAll(): void {
    for (const reset of this.resets) reset();
  }
}
