import { Inject, Injectable } from '@nestjs/common';
import { PAGE_MAX } from '@world/contracts';
import { REPLICA, RPC, serviceLogger, type RpcClient } from '@world/runtime';
import { EffectsRepository } from './effects.repository.js';

const log = serviceLogger('broker');

/** An intent whose outcome was never written: the effect may have run. */
export interface IndeterminateIntent {
  invocationId: string;
  episodeId: string;
  ordinal: number;
  effect: string;
  scope: string;
}

/**
 * Start-up recovery (world-internals §5.5, incident 3): every intent without an outcome is
 * reported as indeterminate — one log line each and `broker.recovery` events (at most PAGE_MAX
 * items each) — and is never re-run and never given an outcome (fail closed). A replica
 * starting while another runs a handler also reports that in-flight intent; the report is
 * information only.
 */
@Injectable()
export class RecoverIntents {
  constructor(
    private readonly effects: EffectsRepository,
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(REPLICA) private readonly replica: string,
  ) {}

  async execute(): Promise<IndeterminateIntent[]> {
    const items = (await this.effects.indeterminate()).map(
      ({ invocationId, episodeId, ordinal, effect, scope }) => ({
        invocationId,
        episodeId,
        ordinal,
        effect,
        scope,
      }),
    );
    for (const item of items) {
      log.warn(
        { ...item, replica: this.replica },
        'indeterminate effect intent: it may have run; it is not re-run',
      );
    }
    for (let i = 0; i < items.length; i += PAGE_MAX) {
      this.rpc.emit('broker.recovery', {
        replica: this.replica,
        items: items.slice(i, i + PAGE_MAX),
      });
    }
    return items;
  }
}
