import { describe, expect, it } from 'vitest';
import { summariseSync } from './consent-views.js';

const at = (iso: string) => new Date(iso);

describe('summariseSync', () => {
  it('says none for a consent without accounts', () => {
    expect(summariseSync([])).toEqual({ status: 'none', lastSyncedAt: null });
  });

  it('reports the least advanced account, and the oldest sync as the freshness every account has', () => {
    expect(
      summariseSync([
        { syncStatus: 'SYNCED', lastSyncedAt: at('2026-11-20T10:00:00Z') },
        { syncStatus: 'SYNCED', lastSyncedAt: at('2026-11-21T10:00:00Z') },
      ]),
    ).toEqual({ status: 'synced', lastSyncedAt: '2026-11-20T10:00:00.000Z' });
    expect(
      summariseSync([
        { syncStatus: 'SYNCED', lastSyncedAt: at('2026-11-21T10:00:00Z') },
        { syncStatus: 'SYNCING', lastSyncedAt: at('2026-11-20T10:00:00Z') },
      ]).status,
    ).toBe('syncing');
    expect(
      summariseSync([
        { syncStatus: 'SYNCING', lastSyncedAt: null },
        { syncStatus: 'FAILED', lastSyncedAt: at('2026-11-20T10:00:00Z') },
      ]),
    ).toEqual({ status: 'failed', lastSyncedAt: null });
  });
});
