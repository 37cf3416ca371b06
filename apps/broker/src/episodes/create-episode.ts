import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import {
  BadRequestError,
  NotFoundError,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { serviceLogger } from '@world/runtime';
import { PolicyFiles } from '../policy/policy-files.js';
import { BROKER_SETTINGS, type BrokerSettings } from '../settings.js';
import { EpisodesRepository } from './episodes.repository.js';
import { materializeWorktree, worktreeProblem } from './worktree.js';

const log = serviceLogger('broker');

/**
 * `broker.episode.create` (world-spec §2.1, §2.3): worktree = <workspaceRoot>/<episodeId>,
 * made from the source, checked to be a real directory that is its own real path and no other
 * episode's, bound to the episode, and its policy file written. Creating an existing episode
 * with the same worktree is idempotent (created:false).
 * @throws BadRequestError when the source is unusable or the worktree is not a real directory
 */
@Injectable()
export class CreateEpisode {
  constructor(
    private readonly episodes: EpisodesRepository,
    private readonly policies: PolicyFiles,
    @Inject(BROKER_SETTINGS) private readonly settings: BrokerSettings,
  ) {}

  async execute(
    request: ParsedRequestOf<'broker.episode.create'>,
  ): Promise<ReplyOf<'broker.episode.create'>> {
    const { episodeId, source } = request;
    const worktree = join(this.settings.workspaceRoot, episodeId);
    const existing = await this.episodes.get(episodeId);
    if (existing?.worktree === worktree) {
      await this.checkReal(worktree);
      await this.policies.ensure(episodeId, worktree);
      return { episodeId, worktree, created: false };
    }
    if (existing?.worktree != null) {
      throw new BadRequestError(
        `episode "${episodeId}" is bound to another worktree: ${existing.worktree}`,
      );
    }
    await materializeWorktree(worktree, source);
    await this.checkReal(worktree);
    const bound = await this.episodes.bindWorktree(episodeId, worktree);
    if (bound === 'taken')
      throw new BadRequestError(`worktree "${worktree}" belongs to another episode`);
    if (bound === 'other')
      throw new BadRequestError(`episode "${episodeId}" is bound to another worktree`);
    await this.policies.ensure(episodeId, worktree);
    if (bound === 'bound')
      log.info({ episodeId, worktree, source: source.kind }, 'episode created');
    return { episodeId, worktree, created: bound === 'bound' };
  }

  private async checkReal(worktree: string): Promise<void> {
    const problem = await worktreeProblem(worktree);
    if (problem !== null)
      throw new BadRequestError(`worktree "${worktree}" is not a real directory: ${problem}`);
  }
}

/** `broker.episode.get`: the episode's worktree. @throws NotFoundError when it has none */
@Injectable()
export class GetEpisode {
  constructor(private readonly episodes: EpisodesRepository) {}

  async execute(episodeId: string): Promise<ReplyOf<'broker.episode.get'>> {
    const row = await this.episodes.get(episodeId);
    if (row === null || row.worktree === null)
      throw new NotFoundError(`episode "${episodeId}" not found`);
    return { episodeId, worktree: row.worktree };
  }
}
