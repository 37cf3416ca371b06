import { Inject, Injectable } from '@nestjs/common';
import {
  BadRequestError,
  CredentialIdSchema,
  EPISODE_ID_RULE,
  EpisodeIdSchema,
  HEX64,
  READ_DEADLINE_MS,
  SESSION_TTL_DEFAULT_SECONDS,
  parseGrant,
  z,
  type ReplyOf,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { SessionResolver } from '../auth/session-resolver.js';
import { parseBody } from '../http/validation.js';
import type { QueryValue } from '../provenance/paging.js';

/** POST /v1/operator/sessions body: grants in their textual form `EFFECT=SCOPE:BUDGET`. */
const MintSessionBodySchema = z
  .object({
    episodeId: EpisodeIdSchema,
    grants: z.array(z.string()).min(1, 'must list at least one grant'),
    ttlSeconds: z.number().int().positive().optional(),
  })
  .strict();

/** What a mint answers: the raw token, shown once, and the session it opens. */
export interface MintedSession {
  token: string;
  credentialId: string;
  episodeId: string;
  grants: ReplyOf<'broker.session.mint'>['grants'];
  expiresAt: number;
}

/** POST /v1/operator/sessions (world-spec §7.6). */
@Injectable()
export class MintSession {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * Mints a session for an episode through `broker.session.mint` (world-spec §2.2, §7.6). Every
   * grant is parsed before anything is sent, so one bad grant mints nothing.
   * @throws BadRequestError naming the bad grant or field
   */
  async execute(body: Record<string, unknown>): Promise<MintedSession> {
    const input = parseBody(MintSessionBodySchema, body);
    const grants = input.grants.map((text) => parseGrant(text));
    const reply = await this.rpc.request(
      'broker.session.mint',
      {
        episodeId: input.episodeId,
        grants,
        ttlSeconds: input.ttlSeconds ?? SESSION_TTL_DEFAULT_SECONDS,
      },
      { timeoutMs: READ_DEADLINE_MS },
    );
    return {
      token: reply.token,
      credentialId: reply.credentialId,
      episodeId: reply.episodeId,
      grants: reply.grants,
      expiresAt: reply.expiresAt,
    };
  }
}

/** GET /v1/operator/sessions (world-spec §7.3 `session list`). */
@Injectable()
export class ListSessions {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * Lists sessions, of one episode when `episode` is given (world-spec §7.3 `session list`).
   * @throws BadRequestError for a malformed episode id
   */
  async execute(episode: QueryValue): Promise<ReplyOf<'broker.session.list'>> {
    if (
      episode !== undefined &&
      (typeof episode !== 'string' || !EpisodeIdSchema.safeParse(episode).success)
    ) {
      throw new BadRequestError(`episode ${EPISODE_ID_RULE}`);
    }
    const reply = await this.rpc.request(
      'broker.session.list',
      episode === undefined ? {} : { episodeId: episode as string },
      { timeoutMs: READ_DEADLINE_MS },
    );
    return { items: reply.items };
  }
}

/**
 * DELETE /v1/operator/sessions/{credentialId}: revokes a session (world-spec §2.2: the next
 * request is "unknown"); this replica drops its cached resolution at once, the others on the
 * broker's `broker.session.revoked` event.
 */
@Injectable()
export class RevokeSession {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    private readonly sessions: SessionResolver,
  ) {}

  /**
   * @throws BadRequestError for a malformed credential id
   */
  async execute(credentialId: string): Promise<{ revoked: boolean }> {
    if (!HEX64.test(credentialId))
      throw new BadRequestError('credential id must be 64 lowercase hex');
    const reply = await this.rpc.request(
      'broker.session.revoke',
      { credentialId: CredentialIdSchema.parse(credentialId) },
      { timeoutMs: READ_DEADLINE_MS },
    );
    this.sessions.forget(credentialId);
    return { revoked: reply.revoked };
  }
}
