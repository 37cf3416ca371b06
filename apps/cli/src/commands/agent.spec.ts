import { refOf } from '@world/canonical';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callArguments, headVerdictText, resultLines, succeeded } from './agent.js';
import { CliError } from './util.js';

describe('callArguments (world-spec §7.3: --arg, --arg-json, or one --json; the forms do not mix)', () => {
  const stdin = async () => '{"path":"from-stdin.txt"}';
  const rows: Array<
    [string, Parameters<typeof callArguments>[0], Record<string, unknown> | string]
  > = [
    [
      '§7.3 --arg values are strings',
      { arg: ['path=a.txt', 'content=x=y'] },
      { path: 'a.txt', content: 'x=y' },
    ],
    [
      '§7.3 --arg-json values are JSON',
      { argJson: ['n=5', 'list=[1,"a"]'] },
      { n: 5, list: [1, 'a'] },
    ],
    [
      '§7.3 both kinds of pairs together',
      { arg: ['path=a'], argJson: ['strict=true'] },
      { path: 'a', strict: true },
    ],
    ['§7.3 no arguments', {}, {}],
    ['§7.3 --json inline', { json: '{"path":"b.txt"}' }, { path: 'b.txt' }],
    ['§7.3 --json - reads stdin', { json: '-' }, { path: 'from-stdin.txt' }],
    [
      '§7.3 --json with --arg',
      { json: '{}', arg: ['a=b'] },
      '--json does not mix with --arg or --arg-json',
    ],
    ['§7.3 --json not an object', { json: '[1]' }, '--json must be a JSON object'],
    ['§7.3 a pair without =', { arg: ['path'] }, '--arg "path" must be KEY=VALUE'],
    ['§7.3 an empty key', { arg: ['=v'] }, '--arg "=v" must be KEY=VALUE'],
    [
      '§7.3 a key given twice',
      { arg: ['a=1'], argJson: ['a=2'] },
      '--arg-json: argument "a" is given twice',
    ],
  ];
  it.each(rows)('%s', async (_row, options, expected) => {
    if (typeof expected === 'string')
      await expect(callArguments(options, stdin)).rejects.toThrow(new CliError(expected, 2));
    else expect(await callArguments(options, stdin)).toEqual(expected);
  });
  it('refuses a --json @file that is not UTF-8 instead of sending U+FFFD (the gateway body rule)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'world-cli-json-'));
    try {
      const bad = join(dir, 'bad.json');
      const good = join(dir, 'good.json');
      // 0xff never occurs in UTF-8; 0xc3 0x28 is a lead byte without its continuation.
      await writeFile(bad, Buffer.from([0x7b, 0x22, 0x70, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
      await writeFile(good, Buffer.from('{"p":"é ✓"}', 'utf8'));
      await expect(callArguments({ json: `@${bad}` }, stdin)).rejects.toThrow(
        new CliError(
          `--json @${bad}: not valid UTF-8 (malformed bytes are refused, not replaced)`,
          2,
        ),
      );
      await writeFile(
        bad,
        Buffer.from([0x7b, 0x22, 0x70, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      );
      await expect(callArguments({ json: `@${bad}` }, stdin)).rejects.toThrow(
        new CliError(
          `--json @${bad}: not valid UTF-8 (malformed bytes are refused, not replaced)`,
          2,
        ),
      );
      expect(await callArguments({ json: `@${good}` }, stdin)).toEqual({ p: 'é ✓' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('keeps an argument named __proto__ as an own key, so the plan refuses it (§3.0)', async () => {
    const args = await callArguments({ arg: ['__proto__=x', 'path=a'], argJson: [] }, stdin);
    expect([
      Object.keys(args),
      JSON.stringify(args),
      Object.getPrototypeOf(args) === Object.prototype,
    ]).toEqual([['__proto__', 'path'], '{"__proto__":"x","path":"a"}', true]);
  });
  it('refuses --arg-json that is not JSON as a usage error', async () => {
    await expect(callArguments({ argJson: ['n=five'] }, stdin)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^--arg-json n: not JSON/),
    });
  });
});

describe('resultLines (world-spec §7.3 `call` output)', () => {
  const plan = refOf('plan');
  const record = refOf('record');
  it('prints the fields, the output ref and size, and the world block', () => {
    const result = {
      ok: true,
      content: 'hi\n',
      world: { effects: [{ id: 'e1', status: 'ok', record }], plan },
    };
    const bytes = Buffer.from(JSON.stringify(result));
    expect(resultLines(result, bytes)).toEqual([
      'ok: true',
      'content: "hi\\n"',
      `output: ${refOf(bytes)} (${bytes.length} bytes)`,
      `plan: ${plan}`,
      `effect e1 ok ${record}`,
    ]);
  });
  it('elides a long field with its byte count and says when there is no effect', () => {
    const result = { ok: false, refused: 'r'.repeat(300), world: { effects: [], plan } };
    const bytes = Buffer.from('{}');
    expect(resultLines(result, bytes)).toEqual([
      'ok: false',
      `refused: "${'r'.repeat(119)}… (302 bytes)`,
      `output: ${refOf(bytes)} (2 bytes)`,
      `plan: ${plan}`,
      'effects: none',
    ]);
  });
});

describe('headVerdictText (world-spec §7.3: a host failure probes /v1/head before and after)', () => {
  const a = { ref: refOf('a'), index: 4 };
  const b = { ref: refOf('b'), index: 5 };
  it.each([
    ['§7.3 no head at all', null, null, 'no world head: nothing is committed yet'],
    ['§7.3 the head moved', a, b, 'a commit landed (entry 5) — do not retry'],
    ['§7.3 the first head appeared', null, b, 'a commit landed (entry 5) — do not retry'],
    [
      '§4.5 the head did not move',
      a,
      a,
      'no commit landed (the head is still entry 4); the effect may have run — check `world log tail` before resending a write',
    ],
  ])('%s', (_row, before, after, text) => expect(headVerdictText(before, after)).toBe(text));
});

describe('succeeded (call --strict: exit 3 unless the committed result is a success)', () => {
  const SHA = `sha256:${'a'.repeat(64)}`;
  const world = (status?: string) => ({
    plan: SHA,
    effects: status === undefined ? [] : [{ id: 'e1', status, record: SHA }],
  });
  it.each([
    ['an ok result', { ok: true, content: 'x', world: world('ok') }, true],
    ['a result without effects', { ok: true, world: world() }, true],
    ['a result with no ok field and an ok effect', { world: world('ok') }, true],
    ['a refusal (ok:false)', { ok: false, refused: 'no', world: world() }, false],
    ['a denied effect with no ok field (budget spent)', { world: world('denied') }, false],
    [
      'a denied effect with ok:false',
      { ok: false, status: 'denied', refused: 'denied', world: world('denied') },
      false,
    ],
    ['a failed effect', { world: world('failed') }, false],
  ])('%s → %s', (_name, result, expected) => {
    expect(succeeded(result)).toBe(expected);
  });
});
