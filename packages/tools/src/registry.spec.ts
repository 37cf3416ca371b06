import { canonicalJson, refOf } from '@world/canonical';
import { checkPath } from './common.js';
import { checkFinishOutput, checkPlan, TOOLS } from './index.js';
import { toolById } from './registry.js';
import type { EffectResult } from './types.js';

/** world-spec §3.0 summary table, in order: id, title, effects, argument names, finish. */
const TABLE = [
  ['ailang-read', 'Read (sandboxed)', ['Workspace.Read'], ['path'], false],
  ['ailang-write', 'Write (sandboxed)', ['Workspace.Write'], ['path', 'content'], false],
  ['ailang-edit', 'Edit (sandboxed)', ['Workspace.Write'], ['path', 'old_text', 'new_text'], false],
  ['ailang-check', 'AILANG Check', ['Ailang.Check'], ['path'], true],
  [
    'ailang-run',
    'AILANG Run (policy-gated)',
    ['Ailang.Run', 'Ailang.RunEnv', 'Ailang.RunNet'],
    ['path', 'args_json', 'stdin', 'argv', 'caps'],
    false,
  ],
  ['builtins-search', 'Search AILANG builtins', ['Ailang.Discover'], ['query', 'module'], true],
  ['examples-search', 'Search AILANG examples', ['Ailang.Discover'], ['query'], false],
  [
    'ailang-cli',
    'AILANG CLI (policy-allowlisted)',
    ['Ailang.CLI'],
    ['op', 'path', 'module', 'query', 'package', 'flags'],
    false,
  ],
] as const;

/** Output schema properties each tool section lists (world-spec §3.1-§3.8), `world` last. */
const OUTPUT_PROPERTIES: Record<string, string[]> = {
  'ailang-read': ['content', 'ok', 'refused', 'world'],
  'ailang-write': ['ok', 'refused', 'world'],
  'ailang-edit': ['ok', 'refused', 'world'],
  'ailang-check': ['passed', 'error_count', 'errors', 'status', 'ok', 'refused', 'world'],
  'ailang-run': [
    'admitted',
    'exit_code',
    'decision',
    'limit',
    'stdout',
    'stderr',
    'stdout_truncated',
    'stderr_truncated',
    'ok',
    'refused',
    'policy',
    'world',
  ],
  'builtins-search': ['count', 'matches', 'status', 'ok', 'refused', 'world'],
  'examples-search': ['stdout', 'ok', 'refused', 'world'],
  'ailang-cli': ['argv', 'exit_code', 'stdout', 'stderr', 'ok', 'refused', 'world'],
};

/** Per tool: arguments that plan an effect, and arguments that plan a refusal. */
const SAMPLES: Record<string, unknown[]> = {
  'ailang-read': [{ path: 'hello.ail' }, { path: 'hello.ail', limit: 5 }],
  'ailang-write': [
    { path: 'a.txt', content: 'x\n' },
    { path: '/a.txt', content: 'x' },
  ],
  'ailang-edit': [{ path: 'a.ail', old_text: 'a', new_text: 'b' }, { path: 'a.ail' }],
  'ailang-check': [{ path: 'a.ail' }, { path: '' }],
  'ailang-run': [
    { path: 'x.ail', caps: ['IO', 'FS', 'Env'], argv: ['1'], stdin: 's' },
    { path: 'x.ail', caps: [] },
  ],
  'builtins-search': [{ query: 'println' }, { query: 1 }],
  'examples-search': [{ query: 'fold' }, {}],
  'ailang-cli': [{ op: 'iface', module: 'std/io', flags: { compact: '' } }, { op: 'read' }],
};

describe('the registry (world-spec §3.0 summary table)', () => {
  it('lists the eight tools in table order', () => {
    expect(TOOLS.map((t) => t.id)).toEqual(TABLE.map((row) => row[0]));
  });

  it.each(TABLE)(
    '%s: title %j, effects, finish and access as §3.0 says',
    (id, title, effects, _args, finish) => {
      const tool = toolById(id);
      expect(tool?.id).toBe(id);
      expect(tool?.title).toBe(title);
      expect(tool?.access).toEqual({ effect: effects[0], scope: 'worktree', cost: 0 });
      expect(tool?.declaredEffects).toEqual(
        effects.map((effect) => ({ effect, scope: 'worktree', cost: 1 })),
      );
      expect(tool?.finish).toBe(finish);
      expect(typeof tool?.finishPhase).toBe(finish ? 'function' : 'undefined');
    },
  );

  it.each(TABLE)(
    '%s: a strict input schema with the §3.0 arguments in order',
    (id, _t, _e, args) => {
      const schema = toolById(id)?.inputSchema as {
        type: string;
        properties: Record<string, { description?: string }>;
        required: string[];
        additionalProperties: boolean;
      };
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      expect(Object.keys(schema.properties)).toEqual(args);
      for (const name of args) expect(typeof schema.properties[name]?.description).toBe('string');
      for (const name of schema.required) expect(args).toContain(name);
    },
  );

  it.each(TABLE)('%s: the output schema requires world and lists the section properties', (id) => {
    const schema = toolById(id)?.outputSchema as {
      type: string;
      properties: object;
      required: string[];
    };
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['world']);
    expect(Object.keys(schema.properties)).toEqual(OUTPUT_PROPERTIES[id]);
  });

  it.each(TABLE)('%s: the description states cost, log entry and world', (id, _t, effects) => {
    const description = toolById(id)?.description ?? '';
    expect(description).toContain(`costs one ${effects[0]}`);
    expect(description).toContain('commits exactly one World log entry');
    expect(description).toContain('carries `world`');
    expect(description).toContain('Unknown argument keys are refused');
  });

  it.each(TABLE)('%s: sourceUrl names the module holding its transition', (id) => {
    expect(toolById(id)?.sourceUrl).toMatch(new RegExp(`^file:///.*/${id}\\.(ts|js)$`));
  });

  it('has no tool for an unknown id', () => {
    expect(toolById('workspace-exec')).toBeUndefined();
    expect(toolById('')).toBeUndefined();
  });

  it('exports checkPath as the pathOk predicate', () => {
    expect([checkPath('a/-b.ail'), checkPath('a/../b')]).toEqual([true, false]);
  });
});

describe('plans are lawful and pure (world-spec §2.5)', () => {
  it.each(TOOLS.map((t) => [t.id]))('%s: every sample plan passes the plan laws', (id) => {
    const tool = toolById(id);
    if (tool === undefined) throw new Error(id);
    const [admitted, refused] = SAMPLES[id] ?? [];
    expect(checkPlan(tool.plan(admitted), tool).effects).toHaveLength(1);
    expect(checkPlan(tool.plan(refused), tool).effects).toHaveLength(0);
  });

  it.each(TOOLS.map((t) => [t.id]))(
    '%s: identical arguments give a byte-identical canonical plan',
    (id) => {
      const tool = toolById(id);
      if (tool === undefined) throw new Error(id);
      for (const args of SAMPLES[id] ?? []) {
        const first = canonicalJson(tool.plan(structuredClone(args)));
        const second = canonicalJson(tool.plan(structuredClone(args)));
        expect(second).toBe(first);
        expect(refOf(second)).toBe(refOf(first));
      }
    },
  );

  it('stores ailang-run plans as the §2.5 canonical bytes', () => {
    expect(canonicalJson(toolById('ailang-run')?.plan({ path: 'hello.ail' }))).toBe(
      '{"effects":[{"cost":1,"effect":"Ailang.Run","id":"e1","payload":{"path":"hello.ail"},"scope":"worktree"}],"finish":false,"plan":"world/effect-plan/v1","result":null}',
    );
  });

  it('gives the same plan ref whatever the key order of ailang-cli arguments', () => {
    const cli = toolById('ailang-cli');
    const a = cli?.plan({ op: 'iface', module: 'std/io', flags: { compact: '', x: '' } });
    const b = cli?.plan({ flags: { x: '', compact: '' }, module: 'std/io', op: 'iface' });
    expect(refOf(canonicalJson(b))).toBe(refOf(canonicalJson(a)));
  });

  it('finish outputs of both finish tools pass plan law L6', () => {
    const denied = (effect: string): EffectResult[] => [
      { id: 'e1', effect, status: 'denied', record: `sha256:${'00'.repeat(32)}`, output: null },
    ];
    expect(
      checkFinishOutput(
        toolById('ailang-check')?.finishPhase?.({ path: 'a.ail' }, denied('Ailang.Check')),
      ),
    ).toEqual({
      ok: false,
      status: 'denied',
      refused: 'the Ailang.Check effect ended denied',
    });
    expect(
      checkFinishOutput(toolById('builtins-search')?.finishPhase?.({}, denied('Ailang.Discover'))),
    ).toEqual({
      ok: false,
      status: 'denied',
      refused: 'the Ailang.Discover effect ended denied',
    });
  });
});
