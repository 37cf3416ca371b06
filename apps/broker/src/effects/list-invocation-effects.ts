import { Injectable } from '@nestjs/common';
import type { ReplyOf } from '@world/contracts';
import { EffectsRepository } from './effects.repository.js';

/**
 * `broker.effect.byInvocation` (world-internals §5.3 receipt law): an invocation's intents with
 * their state — succeeded | failed when an outcome exists, else indeterminate (never reported
 * as not started while an intent exists). Denials have no intent and are not listed.
 */
@Injectable()
export class ListInvocationEffects {
  constructor(private readonly effects: EffectsRepository) {}

  async execute(invocationId: string): Promise<ReplyOf<'broker.effect.byInvocation'>> {
    const rows = await this.effects.byInvocation(invocationId);
    return {
      items: rows.map((r) => ({
        ordinal: r.ordinal,
        effect: r.effect,
        scope: r.scope,
        cost: r.cost,
        status: r.status ?? 'indeterminate',
        recordRef: r.recordRef as `sha256:${string}` | null,
      })),
    };
  }
}
