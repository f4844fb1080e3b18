import { Injectable } from '@nestjs/common';
import { ResetRegistryService } from './reset-registry.service.js';

/** The sandbox's notion of now; the control API moves it forward to expire consents without waiting. */
@Injectable()
export class SandboxClockService {
  private offsetMs = 0;

  constructor(resets: ResetRegistryService) {
    resets.register(
      () => {
        this.offsetMs = 0;
      },
      {
        name: 'clock',
        save: () => ({ offsetMs: this.offsetMs }),
        load: (saved) => {
          this.offsetMs = (saved as { offsetMs: number }).offsetMs;
        },
      },
    );
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  get offset(): number {
    return this.offsetMs;
  }
}
