import type { ReplicaReport } from '@world/contracts';
import { latencySection, replicasSection, uptimeText } from './replicas-section.js';
import type { SurveySnapshot } from './replica-survey.js';

const AT = Date.parse('2026-12-01T12:03:04.500Z');
const ledger: ReplicaReport = {
  instance: 'ledger-1',
  service: 'ledger',
  status: 'unready',
  checks: { database: 'failed', nats: 'ok' },
  integrity: {
    ledger: {
      state: 'mismatch',
      scanned: 40,
      mismatches: 1,
      problems: ['entry 3: <script>alert(1)</script>'],
      complete: true,
    },
  },
  uptimeSeconds: 3725,
  phases: [],
};
const planner: ReplicaReport = {
  instance: 'planner-<b>1</b>',
  service: 'planner',
  status: 'ready',
  checks: {},
  uptimeSeconds: 64.9,
  phases: [
    {
      phase: 'plan',
      buckets: [
        { le: 0.001, count: 1 },
        { le: 0.01, count: 3 },
        { le: null, count: 4 },
      ],
      count: 4,
      sumSeconds: 0.5,
    },
  ],
};
const snapshot: SurveySnapshot = {
  surveyedAtMs: AT,
  windowMs: 500,
  replicas: [planner, ledger],
  quiet: [{ service: 'planner', instance: 'planner-2', lastAnsweredMs: AT - 5000 }],
};
const squash = (s: string) =>
  s
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('the Overview sections drawn from the survey', () => {
  it('states the survey, the silent services and the quiet replica; escapes every string', () => {
    const out = replicasSection(snapshot).text;
    expect(out).toContain('<time datetime="2026-12-01T12:03:04.500Z">12:03:04</time>');
    expect(out).toContain('planner-&lt;b&gt;1&lt;/b&gt;');
    expect(out).toContain('entry 3: &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).not.toContain('<script>');
    expect(squash(out)).toBe(
      'services and replicas surveyed 12:03:04 UTC, 2 replicas answered within 500 ms ' +
        'no replica of gateway answered no replica of broker answered ' +
        'planner-2 (planner) did not answer; it last answered the survey of 12:02:59 UTC ' +
        'service replica state checks integrity scan up ' +
        'planner planner-&lt;b&gt;1&lt;/b&gt; ready none apply (in-process bus) owns no hashed data 1m 04s ' +
        'ledger ledger-1 unready database failed , nats ok ledger: 1 mismatch , 40 rows, complete ' +
        'entry 3: &lt;script&gt;alert(1)&lt;/script&gt; 1h 02m',
    );
  });

  it('says when no survey has finished yet', () => {
    expect(squash(replicasSection(null).text)).toBe(
      'services and replicas not surveyed yet: the first survey runs when the gateway starts ' +
        'service replica state checks integrity scan up',
    );
  });

  it('reads count and percentiles per phase as bucket upper bounds', () => {
    const out = squash(latencySection(snapshot).text);
    expect(out).toContain(
      'phase count p50 p90 p99 replicas plan 4 ≤ 10 ms &gt; 10 ms &gt; 10 ms 1',
    );
    expect(out).toContain('Values are bucket upper bounds of world_phase_seconds');
    expect(out).toContain(
      'buckets of each phase summed over the replicas that timed that phase (its replicas column; 1 replica timed some phase in the last survey)',
    );
  });

  it.each([
    [0, '0s'],
    [59.9, '59s'],
    [60, '1m 00s'],
    [3600, '1h 00m'],
  ])('uptime %s s → %s', (s, text) => expect(uptimeText(s)).toBe(text));
});
