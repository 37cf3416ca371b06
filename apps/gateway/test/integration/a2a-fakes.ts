/**
 * Fakes for the A2A integration tests: the broker of fake-world.ts (sessions), plus a planner and
 * a ledger journal that keep A2A's idempotency law the way the real ones do (a committed task id
 * answers its committed output; the same id with other arguments is InvocationInFlight), so the
 * gateway's A2A surfaces run against the real subjects over a real transport.
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { canonicalBytes, canonicalJson, encodeBase64, refOf } from '@world/canonical';
import {
  InvocationInFlightError,
  TransitionPinMismatchError,
  UnknownToolError,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { InProcessBus, startMicroservice, type TransportConfig } from '@world/runtime';
import { startGateway, type GatewayOptions, type RunningGateway } from '../../src/boot.js';
import { FakeWorld, RecordingLog, hex, ref, type InvokeBehaviour } from './fake-world.js';

/** One committed fake invocation. */
interface Committed {
  request: string;
  reply: ReplyOf<'planner.invoke'>;
}

/** The fake world plus the A2A planner's committed invocations and the ledger's extra states. */
class A2aWorld extends FakeWorld {
  /** invocation id → what committed (the fake ledger's journal) */
  readonly committed = new Map<string, Committed>();
  /** invocation id → a state the journal reports instead (in-flight, ended) */
  readonly states = new Map<string, ReplyOf<'ledger.invocation.get'>>();
  /** when set, ledger.invocation.get fails with this error */
  invocationGetError: (() => Error) | undefined;
  /** the next entry index the fake ledger assigns */
  nextEntry = 3;
}

function a2aModules(world: A2aWorld) {
  @Controller()
  class FakeA2aPlanner {
    @MessagePattern('planner.tools.list')
    list(@Payload() data: ParsedRequestOf<'planner.tools.list'>): ReplyOf<'planner.tools.list'> {
      world.record('planner.tools.list', data);
      if (world.toolsListError !== undefined) throw world.toolsListError();
      const tools = world.registry.filter((t) =>
        data.grants.some(
          (g) =>
            g.effect === t.access.effect && g.scope === t.access.scope && g.expiresAt > data.now,
        ),
      );
      return { tools };
    }

    @MessagePattern('planner.invoke')
    async invoke(
      @Payload() data: ParsedRequestOf<'planner.invoke'>,
    ): Promise<ReplyOf<'planner.invoke'>> {
      // Like the real planner (AdmitCall): admission, then the pin; a refused call runs nothing.
      const tool = world.registry.find((t) => t.id === data.toolId);
      const admitted =
        tool !== undefined &&
        data.session.grants.some(
          (g) =>
            g.effect === tool.access.effect &&
            g.scope === tool.access.scope &&
            g.expiresAt > Date.now(),
        );
      if (!admitted) throw new UnknownToolError(data.toolId);
      if (data.transitionFn !== undefined && data.transitionFn !== tool.transitionFn)
        throw new TransitionPinMismatchError();
      world.record('planner.invoke', data);
      const invocationId = `${data.surface}:${data.session.episodeId}:${data.taskId ?? 'fresh'}`;
      const request = canonicalJson({ tool: data.toolId, arguments: data.arguments });
      const done = world.committed.get(invocationId);
      if (done !== undefined) {
        if (done.request !== request) throw new InvocationInFlightError();
        return { ...done.reply, replayed: true };
      }
      const behaviour: InvokeBehaviour = world.behaviour.get(data.toolId) ?? {
        kind: 'output',
        output: { ok: true },
      };
      if (behaviour.kind === 'throw') throw behaviour.error();
      if (behaviour.kind === 'hang') return new Promise(() => undefined);
      const fields = behaviour.kind === 'held' ? await behaviour.until : behaviour.output;
      const output = {
        ...fields,
        world: { effects: [{ id: 'e1', status: 'ok', record: ref('e') }], plan: ref('f') },
      };
      const bytes = canonicalBytes(output);
      const reply = {
        invocationId,
        output,
        outputBytes: encodeBase64(bytes),
        outputRef: refOf(bytes),
        entryIndex: world.nextEntry++,
        entryHash: ref('e'),
        worldRef: ref('a'),
        replayed: false,
      };
      world.committed.set(invocationId, { request, reply });
      return reply;
    }
  }

  @Controller()
  class FakeA2aJournal {
    @MessagePattern('ledger.invocation.get')
    get(
      @Payload() data: ParsedRequestOf<'ledger.invocation.get'>,
    ): ReplyOf<'ledger.invocation.get'> {
      world.record('ledger.invocation.get', data);
      if (world.invocationGetError !== undefined) throw world.invocationGetError();
      const state = world.states.get(data.invocationId);
      if (state !== undefined) return state;
      const done = world.committed.get(data.invocationId);
      if (done === undefined) return { state: 'none' };
      return {
        state: 'committed',
        entryIndex: done.reply.entryIndex,
        worldRef: done.reply.worldRef,
        outputRef: done.reply.outputRef,
        output: done.reply.outputBytes,
      };
    }
  }

  @Module({ controllers: [FakeA2aPlanner] })
  class FakeA2aPlannerModule {}
  @Module({ controllers: [FakeA2aJournal] })
  class FakeA2aJournalModule {}
  return {
    planner: { module: FakeA2aPlannerModule },
    journal: { module: FakeA2aJournalModule },
  };
}

/** A gateway booted against the A2A fakes. */
export interface A2aHarness {
  world: A2aWorld;
  gateway: RunningGateway;
  log: RecordingLog;
  close(): Promise<void>;
}

/** Boots the fake broker, the A2A planner and journal fakes, and a gateway on a free port. */
export async function startA2aHarness(
  options: Partial<GatewayOptions> & { transport?: TransportConfig } = {},
): Promise<A2aHarness> {
  const world = new A2aWorld();
  const transport = options.transport ?? { kind: 'inproc', bus: new InProcessBus() };
  const base = world.modules();
  const mine = a2aModules(world);
  const services: INestMicroservice[] = [
    await startMicroservice('broker', base.broker, transport),
    await startMicroservice('planner', mine.planner, transport),
    await startMicroservice('ledger', mine.journal, transport),
  ];
  const home = await mkdtemp(join(tmpdir(), 'world-gateway-a2a-'));
  const log = new RecordingLog();
  const gateway = await startGateway({
    transport,
    bind: '127.0.0.1:0',
    worldHome: home,
    operatorToken: hex('0'),
    log,
    ...options,
  });
  return {
    world,
    gateway,
    log,
    async close() {
      await gateway.close();
      for (const service of services) await service.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
