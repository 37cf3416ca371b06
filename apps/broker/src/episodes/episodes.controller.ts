import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { CreateEpisode, GetEpisode } from './create-episode.js';
import { EpisodeSpend } from './episode-spend.js';
import { EpisodeLease } from './lease.js';

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

  @MessagePattern('broker.episode.spend')
  spent(@Payload() data: unknown) {
    return this.spend.execute(parseRequest('broker.episode.spend', data), Date.now());
  }
}
