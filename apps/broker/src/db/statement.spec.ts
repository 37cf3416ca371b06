import { statement, statementsByCount } from './statement.js';

describe('statement (named parameters numbered by first use)', () => {
  const claim = statement<{ id: string; holder: string; fence: number }>(
    'claim',
    (p) =>
      `UPDATE t SET holder = ${p('holder', 'text')} WHERE id = ${p('id', 'text')} ` +
      `AND fence = ${p('fence', 'bigint')} AND other <> ${p('id', 'text')}`,
  );

  it('numbers each key once, in order of first use, with its cast', () => {
    expect(claim.text).toBe(
      'UPDATE t SET holder = $1::text WHERE id = $2::text AND fence = $3::bigint AND other <> $2::text',
    );
  });

  it('lays the values out in placeholder order, whatever the order of the object', () => {
    expect(claim.params({ fence: 7, id: 'ep', holder: 'h' })).toEqual(['h', 'ep', 7]);
  });

  it('keeps null and undefined values a caller gives on purpose', () => {
    expect(claim.params({ fence: 7, id: 'ep', holder: null as unknown as string })).toEqual([
      null,
      'ep',
      7,
    ]);
  });

  it('refuses values without a key the text uses (it would bind NULL silently)', () => {
    expect(() => claim.params({ id: 'ep', holder: 'h' } as never)).toThrow(
      'statement claim: no value for parameter "fence"',
    );
  });

  it('refuses one key bound with two types', () => {
    expect(() =>
      statement<{ a: unknown }>('twice', (p) => `${p('a', 'text')} ${p('a', 'bigint')}`),
    ).toThrow('statement twice: parameter "a" is bound as text and bigint');
  });

  it('builds one statement per count and keeps it', () => {
    let built = 0;
    const byCount = statementsByCount((n) => {
      built += 1;
      return statement<Record<string, unknown>>(`rows_${n}`, (p) =>
        Array.from({ length: n }, (_, i) => p(`v${i}`, 'text')).join(', '),
      );
    });
    expect([byCount(2).text, byCount(3).name, byCount(2).name, built]).toEqual([
      '$1::text, $2::text',
      'rows_3',
      'rows_2',
      2,
    ]);
  });
});
