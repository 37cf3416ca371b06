import { BadRequestError } from '@world/contracts';
import { parseFrom, parseLogIndex, parsePageLimit } from './paging.js';

describe('parsePageLimit (world-spec §5.1 paging, §11 scenario 5)', () => {
  const rows: Array<[string, unknown, number | string]> = [
    ['§5.1 absent → 100', undefined, 100],
    ['§11.5 limit=0 → 100', '0', 100],
    ['§5.1 negative → 100', '-4', 100],
    ['§5.1 within range', '37', 37],
    ['§5.1 at the cap', '500', 500],
    ['§11.5 limit=10000 → 500', '10000', 500],
    ['§5.6 not a number', 'abc', 'limit must be an integer'],
    ['§5.6 a fraction', '1.5', 'limit must be an integer'],
    ['§5.6 empty', '', 'limit must be an integer'],
    ['§5.6 repeated', ['1', '2'], 'limit must be an integer'],
  ];
  it.each(rows)('%s', (_row, input, expected) => {
    if (typeof expected === 'number') expect(parsePageLimit(input)).toBe(expected);
    else expect(() => parsePageLimit(input)).toThrow(new BadRequestError(expected));
  });
});

describe('parseLogIndex (world-spec §5.7)', () => {
  const message = 'log index must be a non-negative integer';
  const rows: Array<[string, unknown, number | null]> = [
    ['§5.7 zero', '0', 0],
    ['§5.7 a large index', '999999', 999999],
    ['§11.5 abc', 'abc', null],
    ['§5.7 negative', '-1', null],
    ['§5.7 a fraction', '2.5', null],
    ['§5.7 beyond a safe integer', '9007199254740993', null],
  ];
  it.each(rows)('%s', (_row, input, expected) => {
    if (expected === null) expect(() => parseLogIndex(input)).toThrow(new BadRequestError(message));
    else expect(parseLogIndex(input)).toBe(expected);
  });
});

describe('parseFrom (world-spec §5.8)', () => {
  it('defaults to 0', () => expect(parseFrom(undefined)).toBe(0));
  it('reads a non-negative integer', () => expect(parseFrom('12')).toBe(12));
  it('refuses anything else', () =>
    expect(() => parseFrom('x')).toThrow(
      new BadRequestError('from must be a non-negative integer'),
    ));
});
