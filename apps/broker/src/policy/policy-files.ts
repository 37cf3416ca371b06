import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { writeFileAtomic } from '../handlers/atomic-write.js';
import { BROKER_SETTINGS, type BrokerSettings } from '../settings.js';
import { renderPolicy, type RenderedPolicy } from './render-policy.js';

/** The policy file is readable by World only (world-spec §2.1, §7.5). */
const POLICY_FILE_MODE = 0o600;
const POLICY_DIR_MODE = 0o700;

/** An episode's policy: rendered text, digest and absolute file path. */
export type EpisodePolicy = RenderedPolicy & { path: string };

/**
 * Renders and writes each episode's policy to <worldHome>/policies/<episode>.toml (mode 0600,
 * outside the workspace root; world-spec §7.6, world-internals §8.2). Writing is idempotent:
 * the file is rewritten only when missing or different.
 */
@Injectable()
export class PolicyFiles {
  private readonly written = new Map<string, string>();

  constructor(@Inject(BROKER_SETTINGS) private readonly settings: BrokerSettings) {}

  /** The policy of an episode (pure rendering; nothing written). */
  policyOf(episodeId: string, worktree: string): EpisodePolicy {
    const rendered = renderPolicy({ worktree, timeoutMs: this.settings.policyTimeoutMs });
    return { ...rendered, path: join(this.settings.policiesDir, `${episodeId}.toml`) };
  }

  /** Makes sure the episode's policy file exists with the rendered bytes; returns the policy. */
  async ensure(episodeId: string, worktree: string): Promise<EpisodePolicy> {
    const policy = this.policyOf(episodeId, worktree);
    if (this.written.get(episodeId) === policy.digest) return policy;
    const current = await readFile(policy.path, 'utf8').catch(() => null);
    if (current !== policy.text) {
      await mkdir(this.settings.policiesDir, { recursive: true, mode: POLICY_DIR_MODE });
      await writeFileAtomic(policy.path, Buffer.from(policy.text, 'utf8'), POLICY_FILE_MODE);
    }
    this.written.set(episodeId, policy.digest);
    return policy;
  }
}
