import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { serviceLogger } from '@world/runtime';
import { CreateEpisode, GetEpisode } from './create-episode.js';
import { EpisodeSpend } from './episode-spend.js';
import { EpisodeLease } from './lease.js';

const log = serviceLogger('broker');

/** The `broker.episode.*` subjects: worktrees and the per-episode lease. */
@Controller()
export class EpisodesController {
  constructor(
    private readonly createEpisode: CreateEpisode,
    private readonly getEpisode: GetEpisode,
    private readonly lease: EpisodeLease,
    private readonly spend: EpisodeSpend,
  ) {}

  @MessagePattern('broker.episode.create')
  create(@Payload() data: unknown) {
    return this.createEpisode.execute(parseRequest('broker.episode.create', data));
  }

  @MessagePattern('broker.episode.get')
  get(@Payload() data: unknown) {
    return this.getEpisode.execute(parseRequest('broker.episode.get', data).episodeId);
  }

  @MessagePattern('broker.episode.acquire')
  acquire(@Payload() data: unknown) {
    return this.lease.acquire(parseRequest('broker.episode.acquire', data));
  }

  @MessagePattern('broker.episode.renew')
  renew(@Payload() data: unknown) {
    return this.lease.renew(parseRequest('broker.episode.renew', data));
  }

  @MessagePattern('broker.episode.release')
  release(@Payload() data: unknown) {
    return this.lease.release(parseRequest('broker.episode.release', data));
  }

  /**
   * The planner's one-way release of a call's lease (`broker.episode.releaseAsync`): the same
   * release by holder+fence as `broker.episode.release`, with no reply. Nothing is thrown back
   * (there is no caller to answer): a malformed event or a failed release is logged; a failed
   * release runs again once the database connection is back (RecentReleases), else the lease
   * lapses at its expiry.
   */
  @EventPattern('broker.episode.releaseAsync')
  async releaseAsync(@Payload() data: unknown): Promise<void> {
    try {
      await this.lease.release(parseRequest('broker.episode.releaseAsync', data));
    } catch (err) {
      log.warn(
        { err },
        'lease release event failed; it runs again once the database connection is back',
      );
    }
  }

  @MessagePattern('broker.episode.spend')
  spent(@Payload() data: unknown) {
    return this.spend.execute(parseRequest('broker.episode.spend', data), Date.now());
  }
}
