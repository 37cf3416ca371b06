import type { ToolDescriptor } from '@world/contracts';
import { currentCardJson, legacyCardJson, referenceCardJson } from './agent-cards.js';

const REF = `sha256:${'1'.repeat(64)}` as const;
const tool = (id: string, title: string): ToolDescriptor => ({
  id,
  title,
  description: `about ${id}`,
  inputSchema: {},
  outputSchema: {},
  access: { effect: 'Workspace.Read', scope: 'worktree', cost: 0 },
  declaredEffects: [],
  transitionFn: REF,
  interpreter: REF,
  semanticsEpoch: 1,
  finish: false,
});
const TOOLS = [tool('ailang-read', 'Read (sandboxed)'), tool('ailang-check', 'Check')];
const ORIGIN = 'http://127.0.0.1:7644';
const ENDPOINT = 'http://127.0.0.1:7644/a2a/jsonrpc';

describe('the agent cards (world-spec §5.13; ecosystem.md §2.3, §8)', () => {
  it('reference card: exactly the §5.13 keys, url = the request origin, skills in registry order', () => {
    const card = referenceCardJson(TOOLS, ORIGIN) as Record<string, unknown>;
    expect(Object.keys(card).sort()).toEqual([
      'capabilities',
      'defaultInputModes',
      'defaultOutputModes',
      'description',
      'name',
      'skills',
      'url',
      'version',
    ]);
    expect(card).toMatchObject({
      name: 'world',
      url: ORIGIN,
      version: '0.1.0',
      capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
      defaultInputModes: ['application/json'],
      defaultOutputModes: ['application/json'],
      skills: [
        {
          id: 'ailang-read',
          name: 'Read (sandboxed)',
          description: 'about ailang-read',
          tags: [],
          examples: [],
        },
        {
          id: 'ailang-check',
          name: 'Check',
          description: 'about ailang-check',
          tags: [],
          examples: [],
        },
      ],
    });
  });

  it('1.0 card: the JSON-RPC endpoint at 1.0 then 0.3, bearer auth, no internal $case fields', () => {
    const card = currentCardJson(TOOLS, ORIGIN) as Record<string, unknown>;
    expect(card.supportedInterfaces).toEqual([
      { url: ENDPOINT, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: ENDPOINT, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toEqual({ streaming: false, pushNotifications: false });
    expect(card.securitySchemes).toEqual({
      session: {
        httpAuthSecurityScheme: { description: 'the session credential', scheme: 'Bearer' },
      },
    });
    expect(card.skills).toEqual([
      { id: 'ailang-read', name: 'Read (sandboxed)', description: 'about ailang-read', tags: [] },
      { id: 'ailang-check', name: 'Check', description: 'about ailang-check', tags: [] },
    ]);
    expect(JSON.stringify(card)).not.toContain('$case');
  });

  it('0.3 rendering: top-level url and protocolVersion of the 0.3 interface, both interfaces embedded', () => {
    const card = legacyCardJson(TOOLS, ORIGIN) as Record<string, unknown>;
    expect(card).toMatchObject({
      url: ENDPOINT,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3',
      securitySchemes: { session: { type: 'http', scheme: 'bearer' } },
      security: [{ session: [] }],
      supportedInterfaces: [
        { url: ENDPOINT, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: ENDPOINT, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
    });
    expect((card.skills as unknown[]).map((s) => (s as { id: string }).id)).toEqual([
      'ailang-read',
      'ailang-check',
    ]);
  });

  it('an empty surface is an empty skill list on every card (§5.13 "skills":[])', () => {
    expect((referenceCardJson([], ORIGIN) as { skills: unknown[] }).skills).toEqual([]);
    expect((currentCardJson([], ORIGIN) as { skills: unknown[] }).skills).toEqual([]);
    expect((legacyCardJson([], ORIGIN) as { skills: unknown[] }).skills).toEqual([]);
  });
});
