import { refOf } from '@world/canonical';
import { TOOLS } from '@world/tools';
import { ToolRegistry, transitionSource } from './tool-registry.js';

describe('ToolRegistry (DESIGN.md §4, world-spec §2.4, §2.7)', () => {
  const registry = new ToolRegistry();
  const live = (effect: string, budget = 5) => ({
    effect,
    scope: 'worktree',
    budget,
    expiresAt: 10_000,
  });

  it('serves the eight tools in registry order with their transitionFn and interpreter', () => {
    expect(registry.tools.map((t) => t.descriptor.id)).toEqual([
      'ailang-read',
      'ailang-write',
      'ailang-edit',
      'ailang-check',
      'ailang-run',
      'builtins-search',
      'examples-search',
      'ailang-cli',
    ]);
    for (const tool of registry.tools) {
      expect(tool.descriptor.transitionFn).toBe(refOf(transitionSource(tool.definition)));
      expect(tool.source.hash).toBe(tool.descriptor.transitionFn);
      expect(tool.descriptor.interpreter).toBe(registry.interpreterRef);
      expect(tool.descriptor.semanticsEpoch).toBe(1);
    }
  });

  it('gives the same refs when built again (stable across restarts of one build)', () => {
    const again = new ToolRegistry(TOOLS);
    expect(again.interpreterRef).toBe(registry.interpreterRef);
    expect(again.registryObject.hash).toBe(registry.registryObject.hash);
  });

  it('lists exactly the tools the live grants admit (world-spec §11 scenario 10)', () => {
    expect(registry.visible([live('Workspace.Read')], 1_000).map((d) => d.id)).toEqual([
      'ailang-read',
    ]);
    expect(registry.visible([live('Workspace.Read', 0)], 1_000).map((d) => d.id)).toEqual([
      'ailang-read',
    ]);
    expect(
      registry.visible([live('Workspace.Write'), live('Ailang.Discover')], 1_000).map((d) => d.id),
    ).toEqual(['ailang-write', 'ailang-edit', 'builtins-search', 'examples-search']);
    expect(registry.visible([live('Workspace.Read')], 10_000)).toEqual([]);
  });

  it('names the interpreter by package, version and Node version', () => {
    expect(registry.interpreterText).toBe(`@world/planner 0.1.0 (node ${process.version})`);
  });
});
