import { createHash } from 'node:crypto';
import { deadlineTable } from '@world/contracts';
import { renderPolicy } from './render-policy.js';

describe('renderPolicy (world-spec §7.6, world-internals §8.2)', () => {
  it('renders the restricted policy with the worktree as sandbox and the derived timeout', () => {
    const { text, digest, policy } = renderPolicy({
      worktree: '/ws/ep1',
      timeoutMs: deadlineTable().policyTimeoutMs,
    });
    expect(text).toBe(
      [
        'security_mode = "restricted"',
        'allowed_caps = ["IO", "FS"]',
        'fs_sandbox = "/ws/ep1"',
        'timeout_ms = 8000',
        'fs_deny_write = [".github/**", ".pi/**", ".claude/**", ".ailang/**", ".gitmodules", ".gitattributes"]',
        'entry = "main"',
        '',
        '[budgets]',
        'FS = 1000',
        '',
      ].join('\n'),
    );
    expect(digest).toBe(createHash('sha256').update(text).digest('hex'));
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(policy).toEqual({
      security_mode: 'restricted',
      allowed_caps: ['IO', 'FS'],
      fs_sandbox: '/ws/ep1',
      timeout_ms: 8000,
      fs_deny_write: [
        '.github/**',
        '.pi/**',
        '.claude/**',
        '.ailang/**',
        '.gitmodules',
        '.gitattributes',
      ],
      entry: 'main',
      budgets: { FS: 1000 },
    });
  });

  it('gives a different digest for a different worktree', () => {
    expect(renderPolicy({ worktree: '/ws/a', timeoutMs: 8000 }).digest).not.toBe(
      renderPolicy({ worktree: '/ws/b', timeoutMs: 8000 }).digest,
    );
  });

  it('refuses a relative sandbox and a non-positive timeout', () => {
    expect(() => renderPolicy({ worktree: 'ws/a', timeoutMs: 8000 })).toThrow(
      'fs_sandbox must be absolute, got ws/a',
    );
    expect(() => renderPolicy({ worktree: '/ws/a', timeoutMs: 0 })).toThrow(
      'policy timeout must be a positive integer, got 0',
    );
  });
});
