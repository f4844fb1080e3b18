import type { SyncTrigger } from './sync-run.statements.js';

/**
 * Why a run was started, as the API, the events, the console and MCP say it: the stored trigger, except
 * that a first sync of an account whose transactions were already stored (`sync_runs.reconnected`) is
 * `reconnected`, since it reads on from them rather than everything. Listed once here for every schema
 * that names them.
 */
export const SYNC_RUN_TRIGGERS = ['initial', 'reconnected', 'scheduled', 'manual'] as const;
export type SyncRunTrigger = (typeof SYNC_RUN_TRIGGERS)[number];

export const SYNC_RUN_TRIGGERS_DESCRIPTION =
  'initial: the first sync after an authorisation, of everything the consent allows; reconnected: the first sync after the user re-authorised or connected the bank again, of an account whose transactions were already stored, read on from them (incremental); scheduled: the worker’s; manual: POST /v1/accounts/{accountId}/sync';

// Each stored trigger is one of the words: a trigger added to the type but not here fails to compile.
const EVERY_STORED: Lowercase<SyncTrigger> extends SyncRunTrigger ? true : never = true;
void EVERY_STORED;

export function syncRunTrigger(run: { trigger: SyncTrigger; reconnected: boolean }): SyncRunTrigger {
  return run.trigger === 'INITIAL' && run.reconnected
    ? 'reconnected'
    : (run.trigger.toLowerCase() as Lowercase<SyncTrigger>);
}
