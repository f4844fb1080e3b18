import { describe, expect, it } from 'vitest';
import { testConfig } from '#libs/testing';
import { JOB_DEFINITIONS, type JobDefinition } from './job-catalogue.js';
import { activeJobSchedules, JOB_SCHEDULES } from './job-schedules.js';

const allOn = {
  SYNC_DISPATCH_EVERY_SECONDS: '60',
  INSTITUTIONS_REFRESH_MINUTES: '360',
  CONSENT_EXPIRY_SCAN_MINUTES: '1440',
  CONSENT_RECONCILE_MINUTES: '30',
  EVENTS_SWEEP_SECONDS: '15',
  PAYMENT_STATUS_POLL_SECONDS: '5',
};

describe('job catalogue: schedules', () => {
  it('declares the schedulers under the ids operators and tests know them by', () => {
    expect(Object.fromEntries(JOB_SCHEDULES.map((s) => [s.name, s.id]))).toEqual({
      'maintenance.refresh-institutions': 'maintenance.refresh-institutions',
      'consents.scan-expiry': 'consents.scan-expiry',
      'consents.reconcile': 'consents.reconcile',
      'sync.dispatch': 'sync.dispatch',
      'events.sweep': 'events.sweep',
      'payments.poll-status': 'payments.poll-status',
    });
    expect(new Set(JOB_SCHEDULES.map((s) => s.id)).size).toBe(JOB_SCHEDULES.length);
  });

  it('takes each interval from its setting, in seconds or minutes', () => {
    expect(activeJobSchedules(testConfig(allOn)).map((s) => [s.id, s.everyMs])).toEqual([
      ['maintenance.refresh-institutions', 360 * 60_000],
      ['consents.scan-expiry', 1440 * 60_000],
      ['consents.reconcile', 30 * 60_000],
      ['sync.dispatch', 60_000],
      ['events.sweep', 15_000],
      ['payments.poll-status', 5_000],
    ]);
  });

  it('leaves out a schedule whose setting is 0, and every one when all are', () => {
    const some = activeJobSchedules(testConfig({ ...allOn, EVENTS_SWEEP_SECONDS: '0' }));
    expect(some.map((s) => s.name)).not.toContain('events.sweep');
    expect(some).toHaveLength(JOB_SCHEDULES.length - 1);
    // The test kit turns every schedule off.
    expect(activeJobSchedules(testConfig())).toEqual([]);
  });

  it('only lets a job without a payload be scheduled (its scheduler enqueues {})', () => {
    const schedule = { id: 'x', everyMs: () => 1_000 };
    const withPayload: JobDefinition<'consents.poll-embedded'> = {
      ...JOB_DEFINITIONS['consents.poll-embedded'],
      // @ts-expect-error a job with a payload cannot have a schedule
      schedule,
    };
    const withoutPayload: JobDefinition<'sync.dispatch'> = { ...JOB_DEFINITIONS['sync.dispatch'], schedule };
    expect([withPayload.queue, withoutPayload.schedule?.id]).toEqual(['consents', 'x']);
  });
});
