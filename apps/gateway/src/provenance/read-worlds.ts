import { Inject, Injectable } from '@nestjs/common';
import { parseRef } from '@world/canonical';
import { NotFoundError, READ_DEADLINE_MS } from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { NOT_FOUND, orNotFound } from './not-found.js';

/** A world row as GET /v1/worlds/{ref} serves it (world-spec §5.4). */
export interface WorldView {
  ref: string;
  revision: number;
  stateRoot: string;
  logHead: string;
}

/** The ledger's worlds, its selected head and its registry heads, as `/v1` serves them. */
@Injectable()
export class ReadWorlds {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * GET /v1/head: the selected head's world ref (world-spec §5.3).
   * @throws NotFoundError `no world head has been selected yet` before genesis
   */
  async head(): Promise<string> {
    const reply = await this.rpc.request('ledger.head', {}, { timeoutMs: READ_DEADLINE_MS });
    if (reply.worldRef === null) throw new NotFoundError(NOT_FOUND.head);
    return reply.worldRef;
  }

  /**
   * GET /v1/worlds/{ref} (world-spec §5.4).
   * @throws BadRequest-mapped InvalidRefError naming `ref`; NotFoundError `world not found`
   */
  async world(refText: string): Promise<WorldView> {
    const ref = parseRef(refText, 'ref');
    const world = await orNotFound(
      this.rpc.request('ledger.world.get', { ref }, { timeoutMs: READ_DEADLINE_MS }),
      NOT_FOUND.world,
    );
    return {
      ref: world.ref,
      revision: world.revision,
      stateRoot: world.stateRoot,
      logHead: world.logHead,
    };
  }

  /**
   * GET /v1/registry/{name...} (world-spec §5.9): `{name, head}`.
   * @throws NotFoundError `registry head not found`
   */
  async registry(name: string): Promise<{ name: string; head: string }> {
    const reply = await orNotFound(
      this.rpc.request('ledger.registry.get', { name }, { timeoutMs: READ_DEADLINE_MS }),
      NOT_FOUND.registry,
    );
    return { name: reply.name, head: reply.head };
  }
}
