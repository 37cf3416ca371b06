import type { ReplicaReport } from '@world/contracts';
import { InProcessBus, InProcessRpcClient } from '@world/runtime';
import { QUIET_KEPT_MS, ReplicaSurvey } from './replica-survey.js';

const report = (service: ReplicaReport['service'], instance: string): ReplicaReport => ({
  instance,
  service,
  status: 'ready',
  checks: {},
  uptimeSeconds: 1,
  phases: [],
});

describe('ReplicaSurvey (every replica answers; quiet ones are stated)', () => {
  it('keeps every reply in service order, then names a replica that stopped answering until it is forgotten', async () => {
    const bus = new InProcessBus();
    const rpc = new InProcessRpcClient(bus);
    let now = 1_000_000;
    const survey = new ReplicaSurvey(rpc, { windowMs: 50, clock: () => now });
    expect(survey.snapshot()).toBeNull();
    rpc.answer('ledger.replicas', async () => report('ledger', 'ledger-1'));
    const g2 = rpc.answer('gateway.replicas', async () => report('gateway', 'gateway-2'));
    rpc.answer('gateway.replicas', async () => report('gateway', 'gateway-1'));
    rpc.answer('planner.replicas', async () => report('planner', 'planner-1'));
    // a reply that throws is not heard, and one off the reply schema is dropped
    rpc.answer('broker.replicas', async () => Promise.reject(new Error('boom')));
    rpc.answer('broker.replicas', async () => ({ instance: 'broker-x' }) as ReplicaReport);

    await survey.refresh();
    expect(survey.snapshot()).toEqual({
      surveyedAtMs: 1_000_000,
      windowMs: 50,
      replicas: [
        report('gateway', 'gateway-1'),
        report('gateway', 'gateway-2'),
        report('planner', 'planner-1'),
        report('ledger', 'ledger-1'),
      ],
      quiet: [],
    });

    g2();
    now += 5_000;
    await survey.refresh();
    expect(survey.snapshot()!.replicas.map((r) => r.instance)).toEqual([
      'gateway-1',
      'planner-1',
      'ledger-1',
    ]);
    expect(survey.snapshot()!.quiet).toEqual([
      { service: 'gateway', instance: 'gateway-2', lastAnsweredMs: 1_000_000 },
    ]);

    now = 1_000_000 + QUIET_KEPT_MS + 1;
    await survey.refresh();
    expect(survey.snapshot()!.quiet).toEqual([]);
  });

  it('does not hear a reply that comes after the window', async () => {
    const bus = new InProcessBus();
    const rpc = new InProcessRpcClient(bus);
    rpc.answer('planner.replicas', async () => {
      await new Promise((r) => setTimeout(r, 200));
      return report('planner', 'planner-slow');
    });
    rpc.answer('planner.replicas', async () => report('planner', 'planner-fast'));
    expect(
      (await rpc.survey('planner.replicas', {}, { windowMs: 20 })).map((r) => r.instance),
    ).toEqual(['planner-fast']);
  });
});
