import { OperatorGateError } from '../errors.js';
import type { AilangPolicy } from '../toolchain/types.js';
import {
  capsTag,
  checkOperatorGates,
  policyDigest,
  policyVariant,
  renderPolicyToml,
} from './policy.js';
import { goDuration } from './supervisor.js';

const base: AilangPolicy = {
  security_mode: 'restricted',
  allowed_caps: ['IO', 'FS'],
  fs_sandbox: '/ws/ep1',
  timeout_ms: 8000,
  fs_deny_write: ['.github/**', '.gitmodules'],
  entry: 'main',
  budgets: { FS: 1000 },
};

describe('policyVariant (world-spec §3.5 capability variants)', () => {
  it.each([
    ['the default IO+FS run uses the episode policy itself', ['FS', 'IO'], null],
    ['Declassify changes nothing in the AILANG policy', ['Declassify', 'FS', 'IO'], null],
    [
      'IO alone keeps FS allowed at budget 0',
      ['IO'],
      { ...base, allowed_caps: ['FS', 'IO'], budgets: { FS: 0 } },
    ],
    ['FS alone drops IO', ['FS'], { ...base, allowed_caps: ['FS'], budgets: { FS: 1000 } }],
    [
      'Clock adds its label and stays restricted (std/clock)',
      ['Clock', 'FS', 'IO'],
      { ...base, allowed_caps: ['Clock', 'FS', 'IO'] },
    ],
    [
      'Net adds the operator net_allow',
      ['FS', 'IO', 'Net'],
      { ...base, allowed_caps: ['FS', 'IO', 'Net'], net_allow: ['127.0.0.1:9000'] },
    ],
    [
      'Env switches to trusted_host with a .git deny entry and explicit limits',
      ['Env', 'IO'],
      {
        ...base,
        security_mode: 'trusted_host',
        allowed_caps: ['Env', 'FS', 'IO'],
        budgets: { FS: 0 },
        fs_deny_write: ['.github/**', '.gitmodules', '.git/**'],
        limits: {
          max_source_bytes: 1048576,
          max_module_graph_bytes: 16777216,
          max_output_bytes: 8388608,
          max_fs_transfer_bytes: 8388608,
        },
      },
    ],
  ])('%s', (_name, caps, expected) => {
    const v = policyVariant(base, caps, ['127.0.0.1:9000']);
    if (expected === null) expect(v).toBe(base);
    else expect(v).toEqual(expected);
  });

  it('adds net_allow_http to a Net run when the operator allows plain http, and only then', () => {
    const net = policyVariant(base, ['IO', 'Net'], ['127.0.0.1:9000'], true);
    expect(net).toEqual({
      ...base,
      allowed_caps: ['FS', 'IO', 'Net'],
      budgets: { FS: 0 },
      net_allow: ['127.0.0.1:9000'],
      net_allow_http: true,
    });
    expect(policyVariant(base, ['IO', 'FS'], ['127.0.0.1:9000'], true)).toBe(base);
    expect(renderPolicyToml(net).split('\n').slice(5, 7)).toEqual([
      'net_allow = ["127.0.0.1:9000"]',
      'net_allow_http = true',
    ]);
    // The variant files differ, so a changed operator setting never reuses the other's file.
    expect([capsTag(net), capsTag(policyVariant(base, ['IO', 'Net'], ['127.0.0.1:9000']))]).toEqual(
      ['FS-IO-Net-fs0-http', 'FS-IO-Net-fs0'],
    );
  });
});

describe('checkOperatorGates (world-spec §3.5 operator gates)', () => {
  it.each([
    ['IO and FS need no gate', ['FS', 'IO'], [], [], null],
    [
      'Env needs --run-allow-caps Env',
      ['Env', 'IO'],
      [],
      [],
      'capability "Env" is not enabled by the operator: the daemon must be started with --run-allow-caps Env',
    ],
    [
      'Declassify needs its gate',
      ['Declassify'],
      ['Env'],
      [],
      'capability "Declassify" is not enabled by the operator: the daemon must be started with --run-allow-caps Declassify',
    ],
    [
      'Net needs an operator address too',
      ['Net'],
      ['Net'],
      [],
      'capability "Net" needs an operator network allowance: the daemon must be started with --run-net-allow 127.0.0.1:PORT',
    ],
    ['Net with both gates passes', ['Net'], ['Net'], ['127.0.0.1:9000'], null],
  ])('%s', (_name, caps, runAllowCaps, netAllow, message) => {
    const run = (): void => checkOperatorGates(caps, { runAllowCaps, netAllow });
    if (message === null) expect(run).not.toThrow();
    else expect(run).toThrow(new OperatorGateError(message, caps[0]!));
  });
});

describe('renderPolicyToml (ailang.md §1.5 keys, world-spec §7.6 order)', () => {
  it('renders the keys in a fixed order and the budgets table', () => {
    expect(
      renderPolicyToml({
        ...base,
        allowed_caps: ['FS', 'IO', 'Net'],
        net_allow: ['127.0.0.1:9000'],
      }),
    ).toBe(
      [
        'security_mode = "restricted"',
        'allowed_caps = ["FS", "IO", "Net"]',
        'fs_sandbox = "/ws/ep1"',
        'timeout_ms = 8000',
        'fs_deny_write = [".github/**", ".gitmodules"]',
        'net_allow = ["127.0.0.1:9000"]',
        'entry = "main"',
        '',
        '[budgets]',
        'FS = 1000',
        '',
      ].join('\n'),
    );
  });

  it('escapes TOML strings', () => {
    expect(renderPolicyToml({ ...base, fs_sandbox: '/ws/a"b\\c\u0001' })).toContain(
      'fs_sandbox = "/ws/a\\"b\\\\c\\u0001"',
    );
  });

  it('digests the bytes as 64 hex (policy_digest)', () => {
    expect(policyDigest('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('goDuration (Go time.Duration text in limit messages)', () => {
  it.each([
    [8000, '8s'],
    [1500, '1.5s'],
    [500, '500ms'],
    [90_000, '1m30s'],
    [3_723_000, '1h2m3s'],
  ])('%p ms → %s', (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });
});
