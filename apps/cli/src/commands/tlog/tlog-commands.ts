/**
 * The transparency-log verbs (README "Verifying the log"): `world checkpoint`, `world proof`,
 * `world verify`.
 */
import { writeFile } from 'node:fs/promises';
import { gatewayUrl, readerToken } from '../client/credentials.js';
import { GatewayClient } from '../client/http.js';
import { HttpProvenance } from '../client/provenance.js';
import { warner, type Output } from '../operator.js';
import { CliError } from '../util.js';
import { locate, parseScan, parseTarget, WhyError } from '@world/why';
import { buildBundle, verifyBundle } from './bundle.js';
import { LogReads } from './log-reads.js';
import { verifyCheckpoints } from './verify-checkpoint.js';

async function client(session: string | undefined, env: NodeJS.ProcessEnv, io: Output) {
  return new GatewayClient(gatewayUrl(env), await readerToken(session, env, warner(io)));
}

/** `world checkpoint [--out FILE]`: the latest signed checkpoint, to stdout or a new file. */
export async function saveCheckpoint(
  opts: { out?: string; session?: string },
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  const note = await new LogReads(await client(opts.session, env, io)).checkpoint();
  if (opts.out === undefined) {
    process.stdout.write(note);
    return;
  }
  await writeFile(opts.out, note, { flag: 'wx' }).catch((err: Error) =>
    Promise.reject(new CliError(`--out ${opts.out}: ${err.message}`, 2)),
  );
  io.err(`checkpoint of size ${note.split('\n')[1]} written to ${opts.out}`);
}

/** `world proof <target>`: the offline bundle of one entry, as JSON on stdout. */
export async function proof(
  targetText: string,
  opts: { scan?: string; session?: string },
  env: NodeJS.ProcessEnv,
  io: Output,
  stdin: () => Promise<string>,
): Promise<void> {
  const gateway = await client(opts.session, env, io);
  const provenance = new HttpProvenance(gateway);
  let located;
  try {
    parseScan(opts.scan);
    located = await locate(provenance, parseTarget(targetText), { stdin });
  } catch (err) {
    // The target's own errors carry the exit code world-spec §7.3 gives them (as `why`).
    if (err instanceof WhyError) throw new CliError(err.message, err.exitCode);
    throw err;
  }
  const bundle = await buildBundle(located.index, provenance, new LogReads(gateway));
  io.out(JSON.stringify(bundle, null, 2));
}

/**
 * `world verify --checkpoint OLD… [--key FILE]` or `world verify --bundle FILE --key VKEY`.
 * @returns the exit code (0 ok, 3 any check failed)
 * @throws CliError exit 2 for a bad combination of options
 */
export async function verify(
  opts: { checkpoint?: string[]; bundle?: string; key?: string; session?: string },
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<number> {
  if (opts.bundle !== undefined) {
    if (opts.checkpoint !== undefined)
      throw new CliError('verify: give --checkpoint or --bundle, not both', 2);
    if (opts.key === undefined)
      throw new CliError('verify: --bundle needs --key VKEY (offline: no key is fetched)', 2);
    return verifyBundle(opts.bundle, opts.key, io);
  }
  if (opts.checkpoint === undefined || opts.checkpoint.length === 0)
    throw new CliError(
      'verify: give --checkpoint FILE (repeatable) or --bundle FILE --key VKEY',
      2,
    );
  const reads = new LogReads(await client(opts.session, env, io));
  return verifyCheckpoints(opts.checkpoint, opts.key, reads, io);
}
