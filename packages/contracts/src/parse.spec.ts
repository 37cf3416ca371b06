import { BadRequestError } from './errors.js';
import { z } from 'zod';
import { describeZodError, parseRequest } from './parse.js';
import { CONTRACTS, ownerOf, wireSubject } from './subjects.js';

describe('parseRequest (one contract per subject, DESIGN.md §1)', () => {
  it('returns the parsed request', () => {
    expect(parseRequest('ledger.log.entry', { index: 3 })).toEqual({ index: 3 });
  });

  it.each([
    [
      'ledger.log.entry',
      { index: -1 },
      'ledger.log.entry: index: Too small: expected number to be >=0',
    ],
    [
      'ledger.world.get',
      { ref: 'sha256:ABC' },
      'ledger.world.get: ref: ref digest must be 64 hex characters',
    ],
    [
      'broker.episode.get',
      { episodeId: 'Bad_Id' },
      'broker.episode.get: episodeId: episode id must match ^[a-z0-9][a-z0-9-]{0,63}$',
    ],
  ] as const)('refuses a bad %s request naming the field', (subject, data, message) => {
    expect(() => parseRequest(subject, data)).toThrow(new BadRequestError(message));
  });

  it('names every subject after its owning service and prefixes it on the wire', () => {
    for (const subject of Object.keys(CONTRACTS) as Array<keyof typeof CONTRACTS>) {
      expect(['ledger', 'broker', 'planner', 'gateway']).toContain(ownerOf(subject));
      expect(wireSubject('world', subject)).toBe(`world.${subject}`);
    }
  });
});

describe('describeZodError (one describer: first problem, field named by fieldName)', () => {
  const Body = z.object({ objects: z.array(z.object({ hash: z.string() })) });

  it.each([
    [
      'a nested array field',
      { objects: [{ hash: 1 }] },
      undefined,
      'objects[0].hash: Invalid input: expected string, received number',
    ],
    [
      'the value itself, as a request',
      7,
      undefined,
      'request: Invalid input: expected object, received number',
    ],
    [
      'the value itself, as a body',
      7,
      'body',
      'body: Invalid input: expected object, received number',
    ],
  ] as const)('names %s', (_row, value, whole, message) => {
    const result = Body.safeParse(value);
    expect(result.success).toBe(false);
    expect(describeZodError(result.error!, whole)).toBe(message);
  });
});
