import { Inject, Injectable } from '@nestjs/common';
import {
  confinementOf,
  NotFoundError,
  PAGE_MAX,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { EffectsRepository, spendKey } from '../effects/effects.repository.js';
import { longestCallMs } from '../effects/recover-intents.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import { BROKER_SETTINGS, type BrokerSettings } from '../settings.js';
import { EpisodesRepository, leaseLive } from './episodes.repository.js';

/**
 * `broker.episode.spend` (the workbench's Episodes page, DESIGN.md §5a): per grant of the episode's
 * sessions (at most PAGE_MAX sessions, newest first, as `broker.session.list`) its budget, the
 * episode's spend for its (effect, scope) and what is left (budget − spent floored at 0, as the
 * grant decision seeds it: decide.ts GrantView.remaining); the lease holder while its lease is
 * unexpired; and the episode's indeterminate intents by the recovery rule
 * (EffectsRepository.orphaned with longestCallMs — the same rule RecoverIntents reports by).
 * Read-only.
 * @throws NotFoundError when the scope may not read this episode (contracts VISIBILITY `spend`)
 *   or the episode has neither a session nor an episode row
 */
@Injectable()
export class EpisodeSpend {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly episodes: EpisodesRepository,
    private readonly effects: EffectsRepository,
    @Inject(BROKER_SETTINGS) private readonly settings: BrokerSettings,
  ) {}

  async execute(
    input: ParsedRequestOf<'broker.episode.spend'>,
    now: number,
  ): Promise<ReplyOf<'broker.episode.spend'>> {
    const { episodeId, scope } = input;
    const confined = confinementOf(scope, 'spend');
    if (confined !== null && confined !== episodeId) throw notFound(episodeId);
    const [sessions, row, spent, orphans] = await Promise.all([
      this.sessions.list(episodeId, PAGE_MAX),
      this.episodes.get(episodeId),
      this.effects.spendOf(episodeId),
      this.effects.orphaned(now, longestCallMs(this.settings.callDeadlineMs), episodeId),
    ]);
    if (sessions.length === 0 && row === null) throw notFound(episodeId);
    const leased = row !== null && leaseLive(row, now);
    return {
      episodeId,
      grants: sessions.flatMap((s) =>
        s.grants.map((g) => {
          const used = spent.get(spendKey(g.effect, g.scope)) ?? 0;
          return {
            credentialId: s.credentialId,
            effect: g.effect,
            scope: g.scope,
            budget: g.budget,
            spent: used,
            left: Math.max(0, g.budget - used),
            expiresAt: g.expiresAt,
          };
        }),
      ),
      lease: leased
        ? { holder: row.leaseHolder!, fence: row.leaseFence, expiresAt: row.leaseExpiresAt! }
        : null,
      indeterminate: orphans.map(({ invocationId, ordinal, effect, scope: s }) => ({
        invocationId,
        episodeId,
        ordinal,
        effect,
        scope: s,
      })),
    };
  }
}

function notFound(episodeId: string): NotFoundError {
  return new NotFoundError(`episode "${episodeId}" not found`);
}
