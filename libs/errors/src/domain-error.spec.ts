import { describe, expect, it } from 'vitest';
import { invalidRequest } from './domain-error.js';

describe('invalidRequest: the message names the first problem, and its field once', () => {
  it.each([
    [[{ field: 'limit', issue: 'must be an integer' }], 'limit must be an integer'],
    [[{ field: 'limit', issue: 'limit must not be less than 1' }], 'limit must not be less than 1'],
    [[{ field: 'secret', issue: 'property secret should not exist' }], 'property secret should not exist'],
    [
      [{ field: 'payee.nickname', issue: 'property nickname should not exist' }],
      'property payee.nickname should not exist',
    ],
    [
      [{ field: 'payee.name', issue: 'must be at most 140 characters' }],
      'payee.name must be at most 140 characters',
    ],
    [
      [
        { field: 'url', issue: 'must not carry credentials' },
        { field: 'types', issue: 'types must be event types' },
      ],
      'url must not carry credentials (and 1 more in details)',
    ],
    [[], 'The request is invalid.'],
  ])('%j → %s', (details, message) => {
    const error = invalidRequest(details);
    expect(error.message).toBe(message);
    expect(error.extra.details).toEqual(details);
  });
});
