import { Global, Module } from '@nestjs/common';

/**
 * The one clock of time-based rules (consent expiry, reconciliation): injected, so a test moves time
 * instead of waiting for it. Everything else may read the system time directly.
 */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };

@Global()
@Module({ providers: [{ provide: CLOCK, useValue: systemClock }], exports: [CLOCK] })
export class ClockModule {}
