import { Inject, Injectable } from '@nestjs/common';
import {
  BadRequestError,
  EPISODE_SOURCE_MS,
  EpisodeIdSchema,
  REPLY_GRACE_MS,
  z,
  type ReplyOf,
  type RequestOf,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { parseBody } from '../http/validation.js';

/** POST /v1/operator/episodes body: an id and at most one source (a directory or a git repo). */
const CreateEpisodeBodySchema = z
  .object({
    episodeId: EpisodeIdSchema,
    from: z.string().min(1).optional(),
    git: z.string().min(1).optional(),
    ref: z.string().min(1).optional(),
  })
  .strict();

/** POST /v1/operator/episodes (world-spec §7.9). */
@Injectable()
export class CreateEpisode {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * Creates an episode and its worktree through `broker.episode.create`: empty, a copy of `from`,
   * or a worktree of `git` at `ref` (world-spec §7.9 "operator sequence"). Idempotent in the
   * broker for the same id.
   * @throws BadRequestError naming the problem (both sources, `ref` without `git`, bad id)
   */
  async execute(body: Record<string, unknown>): Promise<ReplyOf<'broker.episode.create'>> {
    const input = parseBody(CreateEpisodeBodySchema, body);
    if (input.from !== undefined && input.git !== undefined)
      throw new BadRequestError('give at most one of "from" and "git"');
    if (input.ref !== undefined && input.git === undefined)
      throw new BadRequestError('"ref" needs "git"');
    const source: RequestOf<'broker.episode.create'>['source'] =
      input.from !== undefined
        ? { kind: 'copy', dir: input.from }
        : input.git !== undefined
          ? { kind: 'git', repo: input.git, ...(input.ref !== undefined && { ref: input.ref }) }
          : { kind: 'empty' };
    const reply = await this.rpc.request(
      'broker.episode.create',
      { episodeId: input.episodeId, source },
      // Copying a tree or adding a git worktree has its own budget in the broker.
      { timeoutMs: EPISODE_SOURCE_MS + REPLY_GRACE_MS },
    );
    return {
      episodeId: reply.episodeId,
      worktree: reply.worktree,
      ...(reply.created !== undefined && { created: reply.created }),
    };
  }
}
