/**
 * Fake ledger, broker and planner for the gateway's integration tests: tiny Nest modules whose
 * @MessagePattern handlers answer the real subjects of packages/contracts over a real transport
 * (an InProcessBus, or NATS), so the gateway runs exactly as it will against the real services.
 * Each fake records what it was asked and answers from state the test sets.
 */
import 'reflect-metadata';
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { canonicalBytes, encodeBase64, refOf } from '@world/canonical';
import {
  UnknownToolError,
  NotFoundError,
  StoredObjectCorruptError,
  credentialIdOf,
  type ParsedRequestOf,
  type ReplyOf,
  type RequestOf,
  type Session,
  type SubjectName,
  type ToolDescriptor,
} from '@world/contracts';
import { InProcessBus, startMicroservice, type TransportConfig } from '@world/runtime';
import { startGateway, type GatewayOptions, type RunningGateway } from '../../src/boot.js';
import type { LogSink } from '../../src/log.js';

export const ref = (c: string): `sha256:${string}` => `sha256:${c.repeat(64)}`;
export const hex = (c: string): string => c.repeat(64);

/**
 * One HTTP request through node:http, for headers fetch will not let a caller set (Host).
 * @returns the status, headers and body text
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A descriptor admitted by a grant on `effect` at scope `worktree`. */
export function tool(
  id: string,
  effect: string,
  extra: Partial<ToolDescriptor> = {},
): ToolDescriptor {
  return {
    id,
    title: `Title of ${id}`,
    description: `Description of ${id}`,
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { world: { type: 'object' } },
      required: ['world'],
    },
    access: { effect, scope: 'worktree', cost: 0 },
    declaredEffects: [{ effect, scope: 'worktree', cost: 1 }],
    transitionFn: ref('1'),
    interpreter: ref('2'),
    semanticsEpoch: 1,
    finish: false,
    ...extra,
  };
}

/** What planner.invoke should do for one tool. */
export type InvokeBehaviour =
  | { kind: 'output'; output: Record<string, unknown> }
  | { kind: 'throw'; error: () => Error }
  | { kind: 'hang' }
  /** answers with the output `until` resolves to (a call the test holds in flight) */
  | { kind: 'held'; until: Promise<Record<string, unknown>> };

/** A line the gateway logged. */
export interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A recorder standing in for the gateway's pino logger. */
export class RecordingLog implements LogSink {
  readonly lines: LogLine[] = [];
  info(fields: object, message: string) {
    this.lines.push({ level: 'info', fields: fields as Record<string, unknown>, message });
  }
  warn(fields: object, message: string) {
    this.lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message });
  }
  error(fields: object, message: string) {
    this.lines.push({ level: 'error', fields: fields as Record<string, unknown>, message });
  }
}

/** State and call records of the three fake services. */
export class FakeWorld {
  /** every request the fakes answered, in order */
  readonly calls: Array<{ subject: SubjectName; data: unknown }> = [];
  /** token → session, as the broker's session table */
  readonly sessions = new Map<string, { session: Session; state: 'ok' | 'revoked' | 'expired' }>();
  registry: ToolDescriptor[] = [];
  /** when set, planner.tools.list fails with this error */
  toolsListError: (() => Error) | undefined;
  behaviour = new Map<string, InvokeBehaviour>();
  head: ReplyOf<'ledger.head'> = { worldRef: null, world: null, entryIndex: null };
  worlds = new Map<string, ReplyOf<'ledger.world.get'>>();
  ledgerObjects = new Map<
    string,
    { hash: string; interfaceHash: string; semanticId: string; provenance: string; payload: string }
  >();
  brokerObjects = new Map<
    string,
    { hash: string; interfaceHash: string; semanticId: string; provenance: string; payload: string }
  >();
  log: ReplyOf<'ledger.log.entry'>[] = [];
  registryHeads = new Map<string, string>();
  receipts = new Map<string, ReplyOf<'ledger.receipt.get'>>();
  /** receipt ids the ledger answers NotFound to (not the scope's to read) */
  hiddenReceipts = new Set<string>();
  /** ledger object ref → the problem a payload read of it reports (stored bytes altered) */
  corrupt = new Map<string, string>();
  semanticIndex: ReplyOf<'ledger.objects.bySemanticId'>['items'] = [];
  /** what ledger.restCommit does */
  restCommit: (
    req: ParsedRequestOf<'ledger.restCommit'>,
  ) => Promise<ReplyOf<'ledger.restCommit'>> | ReplyOf<'ledger.restCommit'> = () => ({
    selectedHead: ref('9'),
  });
  plannerInfo: ReplyOf<'planner.info'> = {
    interpreter: ref('2'),
    interpreterVersion: 'world-planner 0.1.0 (node v20)',
    semanticsEpoch: 1,
  };

  /** Calls recorded for one subject. */
  callsOf<S extends SubjectName>(subject: S): RequestOf<S>[] {
    return this.calls.filter((c) => c.subject === subject).map((c) => c.data as RequestOf<S>);
  }

  /** Adds a session to the fake broker; returns its token. */
  addSession(
    token: string,
    grants: Array<[effect: string, budget: number, scope?: string]>,
    options: { episodeId?: string; expiresAt?: number; state?: 'ok' | 'revoked' | 'expired' } = {},
  ): Session {
    const expiresAt = options.expiresAt ?? Date.now() + 3_600_000;
    const session: Session = {
      credentialId: credentialIdOf(token),
      episodeId: options.episodeId ?? 'ep1',
      grants: grants.map(([effect, budget, scope = 'worktree']) => ({
        effect,
        scope,
        budget,
        expiresAt,
      })),
      createdAt: Date.now(),
      expiresAt,
    };
    this.sessions.set(session.credentialId, { session, state: options.state ?? 'ok' });
    return session;
  }

  /** Records one request a fake answered. */
  record(subject: SubjectName, data: unknown) {
    this.calls.push({ subject, data });
  }

  /** The three Nest modules serving the fakes. */
  modules() {
    return fakeModules(this);
  }
}

/** The fakes' Nest modules, answering from `world`'s state. */
function fakeModules(world: FakeWorld) {
  @Controller()
  class FakeBroker {
    @MessagePattern('broker.session.resolve')
    resolve(
      @Payload() data: ParsedRequestOf<'broker.session.resolve'>,
    ): ReplyOf<'broker.session.resolve'> {
      world.record('broker.session.resolve', data);
      const found = world.sessions.get(data.credentialId);
      if (found === undefined) return { status: 'unknown' };
      if (found.state === 'ok') return { status: 'ok', session: found.session };
      return { status: found.state };
    }

    @MessagePattern('broker.session.mint')
    mint(@Payload() data: ParsedRequestOf<'broker.session.mint'>): ReplyOf<'broker.session.mint'> {
      world.record('broker.session.mint', data);
      const token = hex('c');
      const expiresAt = 1_000_000 + data.ttlSeconds * 1000;
      return {
        token,
        credentialId: credentialIdOf(token),
        episodeId: data.episodeId,
        grants: data.grants.map((g) => ({ ...g, expiresAt })),
        createdAt: 1_000_000,
        expiresAt,
      };
    }

    @MessagePattern('broker.session.list')
    list(@Payload() data: ParsedRequestOf<'broker.session.list'>): ReplyOf<'broker.session.list'> {
      world.record('broker.session.list', data);
      const items = [...world.sessions.values()]
        .filter((s) => data.episodeId === undefined || s.session.episodeId === data.episodeId)
        .map((s) => ({
          ...s.session,
          revokedAt: s.state === 'revoked' ? 5 : null,
          live: s.state === 'ok',
        }));
      return { items };
    }

    @MessagePattern('broker.session.revoke')
    revoke(
      @Payload() data: ParsedRequestOf<'broker.session.revoke'>,
    ): ReplyOf<'broker.session.revoke'> {
      world.record('broker.session.revoke', data);
      const found = world.sessions.get(data.credentialId);
      if (found === undefined) return { revoked: false };
      found.state = 'revoked';
      return { revoked: true };
    }

    @MessagePattern('broker.episode.create')
    createEpisode(
      @Payload() data: ParsedRequestOf<'broker.episode.create'>,
    ): ReplyOf<'broker.episode.create'> {
      world.record('broker.episode.create', data);
      return {
        episodeId: data.episodeId,
        worktree: `/work/episodes/${data.episodeId}`,
        created: true,
      };
    }

    @MessagePattern('broker.object.get')
    object(@Payload() data: ParsedRequestOf<'broker.object.get'>): ReplyOf<'broker.object.get'> {
      world.record('broker.object.get', data);
      const found = world.brokerObjects.get(data.ref);
      if (found === undefined) throw new NotFoundError('no such broker object');
      const { payload, ...head } = found;
      return (data.payload ? { ...head, payload } : head) as ReplyOf<'broker.object.get'>;
    }
  }

  @Controller()
  class FakeLedger {
    @MessagePattern('ledger.head')
    head(): ReplyOf<'ledger.head'> {
      world.record('ledger.head', {});
      return world.head;
    }

    @MessagePattern('ledger.world.get')
    world(@Payload() data: ParsedRequestOf<'ledger.world.get'>): ReplyOf<'ledger.world.get'> {
      world.record('ledger.world.get', data);
      const found = world.worlds.get(data.ref);
      if (found === undefined) throw new NotFoundError('no such world row');
      return found;
    }

    @MessagePattern('ledger.object.get')
    object(@Payload() data: ParsedRequestOf<'ledger.object.get'>): ReplyOf<'ledger.object.get'> {
      world.record('ledger.object.get', data);
      const found = world.ledgerObjects.get(data.ref);
      if (found === undefined) throw new NotFoundError('no such object');
      const problem = world.corrupt.get(data.ref);
      if (problem !== undefined && data.payload) throw new StoredObjectCorruptError(problem);
      const { payload, ...head } = found;
      return (data.payload ? { ...head, payload } : head) as ReplyOf<'ledger.object.get'>;
    }

    @MessagePattern('ledger.objects.bySemanticId')
    bySemanticId(
      @Payload() data: ParsedRequestOf<'ledger.objects.bySemanticId'>,
    ): ReplyOf<'ledger.objects.bySemanticId'> {
      world.record('ledger.objects.bySemanticId', data);
      const items = world.semanticIndex
        .filter(
          (o) =>
            o.semanticId === data.semanticId &&
            (data.after === undefined || data.after === null || o.hash > data.after),
        )
        .sort((a, b) => (a.hash < b.hash ? -1 : 1))
        .slice(0, data.limit);
      return { items };
    }

    @MessagePattern('ledger.log.entry')
    entry(@Payload() data: ParsedRequestOf<'ledger.log.entry'>): ReplyOf<'ledger.log.entry'> {
      world.record('ledger.log.entry', data);
      const found = world.log[data.index];
      if (found === undefined) throw new NotFoundError('no such entry');
      return found;
    }

    @MessagePattern('ledger.log.range')
    range(@Payload() data: ParsedRequestOf<'ledger.log.range'>): ReplyOf<'ledger.log.range'> {
      world.record('ledger.log.range', data);
      return { items: world.log.slice(data.from, data.from + data.limit) };
    }

    @MessagePattern('ledger.registry.get')
    registry(
      @Payload() data: ParsedRequestOf<'ledger.registry.get'>,
    ): ReplyOf<'ledger.registry.get'> {
      world.record('ledger.registry.get', data);
      const head = world.registryHeads.get(data.name);
      if (head === undefined) throw new NotFoundError('no such registry');
      return { name: data.name, head: head as `sha256:${string}`, changed: false };
    }

    @MessagePattern('ledger.receipt.get')
    receipt(@Payload() data: ParsedRequestOf<'ledger.receipt.get'>): ReplyOf<'ledger.receipt.get'> {
      world.record('ledger.receipt.get', data);
      if (world.hiddenReceipts.has(data.invocationId)) throw new NotFoundError('receipt not found');
      return (
        world.receipts.get(data.invocationId) ?? {
          invocationId: data.invocationId,
          state: 'not-started',
        }
      );
    }

    @MessagePattern('ledger.restCommit')
    async restCommit(
      @Payload() data: ParsedRequestOf<'ledger.restCommit'>,
    ): Promise<ReplyOf<'ledger.restCommit'>> {
      world.record('ledger.restCommit', data);
      return world.restCommit(data);
    }
  }

  @Controller()
  class FakePlanner {
    @MessagePattern('planner.info')
    info(): ReplyOf<'planner.info'> {
      world.record('planner.info', {});
      return world.plannerInfo;
    }

    /** Visibility: a grant on the tool's access effect and scope, whatever its budget. */
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
      // Like the real planner: admission first; a tool outside the surface runs nothing.
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
      world.record('planner.invoke', data);
      const behaviour = world.behaviour.get(data.toolId) ?? {
        kind: 'output',
        output: { ok: true },
      };
      if (behaviour.kind === 'throw') throw behaviour.error();
      if (behaviour.kind === 'hang') return new Promise(() => undefined);
      const fields = behaviour.kind === 'held' ? await behaviour.until : behaviour.output;
      // A behaviour may bring its own world block (a denial, a failed effect).
      const output = {
        world: { effects: [{ id: 'e1', status: 'ok', record: ref('e') }], plan: ref('f') },
        ...fields,
      };
      const bytes = canonicalBytes(output);
      return {
        invocationId: `mcp:${data.session.episodeId}:${data.taskId ?? 'generated'}`,
        output,
        outputBytes: encodeBase64(bytes),
        outputRef: refOf(bytes),
        entryIndex: 3,
        entryHash: ref('e'),
        worldRef: ref('a'),
        replayed: false,
      };
    }
  }

  @Module({ controllers: [FakeBroker] })
  class FakeBrokerModule {}
  @Module({ controllers: [FakeLedger] })
  class FakeLedgerModule {}
  @Module({ controllers: [FakePlanner] })
  class FakePlannerModule {}
  return {
    broker: { module: FakeBrokerModule },
    ledger: { module: FakeLedgerModule },
    planner: { module: FakePlannerModule },
  };
}

/** A gateway booted against fakes, with its operator token and a scratch WORLD_HOME. */
export interface Harness {
  world: FakeWorld;
  gateway: RunningGateway;
  log: RecordingLog;
  transport: TransportConfig;
  operatorToken: string;
  home: string;
  close(): Promise<void>;
}

/** Boots the three fakes and a gateway on a free loopback port. */
export async function startHarness(
  options: Partial<GatewayOptions> & { transport?: TransportConfig } = {},
): Promise<Harness> {
  const world = new FakeWorld();
  const transport = options.transport ?? { kind: 'inproc', bus: new InProcessBus() };
  const modules = world.modules();
  const services: INestMicroservice[] = [
    await startMicroservice('broker', modules.broker, transport),
    await startMicroservice('ledger', modules.ledger, transport),
    await startMicroservice('planner', modules.planner, transport),
  ];
  const home = await mkdtemp(join(tmpdir(), 'world-gateway-'));
  const log = new RecordingLog();
  const operatorToken = hex('0');
  const gateway = await startGateway({
    transport,
    bind: '127.0.0.1:0',
    worldHome: home,
    operatorToken,
    log,
    ...options,
  });
  return {
    world,
    gateway,
    log,
    transport,
    operatorToken,
    home,
    async close() {
      await gateway.close();
      for (const service of services) await service.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
