import { describe, expect, it } from 'vitest';
import { ALL_JOB_NAMES, JOB_DEFINITIONS, QueueName } from './job-catalogue.js';
import { checkJobHandlers, withRelativeStack } from './job-processor.base.js';

const processor = (queue: QueueName, names: string[]) => ({ queue, handledNames: () => names });
const complete = () =>
  Object.values(QueueName).map((queue) =>
    processor(
      queue,
      ALL_JOB_NAMES.filter((name) => JOB_DEFINITIONS[name].queue === queue),
    ),
  );

describe('job catalogue: handlers checked at boot', () => {
  it('accepts one handler per job, each on its own queue', () => {
    expect(checkJobHandlers(complete())).toEqual([]);
  });

  it('names a job that no processor handles', () => {
    const processors = complete().map((p) => (p.queue === QueueName.Consents ? processor(p.queue, []) : p));
    expect(checkJobHandlers(processors)).toEqual(
      ALL_JOB_NAMES.filter((name) => JOB_DEFINITIONS[name].queue === QueueName.Consents).map(
        (name) => `${name}: no handler in a processor of queue consents`,
      ),
    );
    expect(checkJobHandlers(processors)).toContain(
      'consents.poll-embedded: no handler in a processor of queue consents',
    );
  });

  it('names a handler on the wrong queue, and one the catalogue does not know', () => {
    const processors = [
      ...complete(),
      processor(QueueName.Maintenance, ['consents.poll-embedded', 'maintenance.unknown']),
    ];
    // A second processor on a queue adds to the first one's handlers.
    expect(checkJobHandlers(processors)).toEqual([
      'consents.poll-embedded: handled on maintenance, but the catalogue puts it on consents',
      'maintenance.unknown: handled on maintenance but not in the catalogue',
    ]);
  });
});

describe('job catalogue: dedupe ids', () => {
  it('gives one readable id per consent for the embedded poll, without a colon', () => {
    const id = JOB_DEFINITIONS['consents.poll-embedded'].dedupeId!({ merchantId: 'm', consentId: 'c-1' });
    expect(id).toBe('consents.poll-embedded.c-1');
    expect(id).not.toContain(':');
  });

  it('leaves jobs without one to be new on every enqueue', () => {
    expect(JOB_DEFINITIONS['maintenance.ping'].dedupeId).toBeUndefined();
  });
});

describe('withRelativeStack', () => {
  it("leaves the repository's path out of a failed job's stack, and the rest of it as it was", () => {
    const error = new Error('bank said no');
    const root = `${process.cwd()}/`;
    expect(error.stack).toContain(root);
    const stack = withRelativeStack(error).stack!;
    expect(stack).not.toContain(root);
    expect(stack).toMatch(/^Error: bank said no\n\s+at .*libs\/queue\/src\/job-processor\.spec\.ts:\d+/);
    expect(withRelativeStack('not an error')).toBe('not an error');
  });
});
