import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  ConfineRaceError,
  confinePath,
  hasExtraLinks,
  openParent,
  toolRefusalText,
  type Access,
} from '@world/ailang';
import { READ_CONTENT_MAX_BYTES } from '@world/contracts';
import { writeFileAtomic } from './atomic-write.js';
import {
  HandlerInputError,
  payloadString,
  type EffectHandler,
  type HandlerContext,
  type HandlerOutput,
} from './registry.js';

/** The verbs of the workspace handlers; they prefix every refusal (world-spec §3.1–§3.3). */
type FileVerb = 'read' | 'write' | 'edit';

/** The symbolic scope every workspace tool asks for (world-spec §2.7, §3.0). */
const WORKTREE_SCOPE = 'worktree';

/**
 * `Workspace.Read`: op `read` → `{ok:true, content}` | `{ok:false, refused}` (world-spec §3.1).
 * @internal exported for workspace.spec.ts
 */
export const workspaceRead: EffectHandler = {
  ops: ['read'],
  scopes: [WORKTREE_SCOPE],
  async run(payload, ctx) {
    const path = payloadString(payload, 'path');
    const target = confined(ctx, 'read', path, 'read');
    if (typeof target !== 'string') return target;
    try {
      const file = await inParent(ctx, target, false, (at) =>
        readRegularFile(ctx, at, 'read', path, READ_CONTENT_MAX_BYTES),
      );
      return file.ok ? { ok: true, content: file.content } : refuse(file.refused);
    } catch (err) {
      if (err instanceof ConfineRaceError) return refuse(raceText(ctx, 'read', path));
      return refuse(fileErrorText('read', path, 'openat', err));
    }
  },
};

/**
 * `Workspace.Write`: ops `write` (create or overwrite) and `edit` (replace the one occurrence of
 * `old_text`) → `{ok:true}` | `{ok:false, refused}` (world-spec §3.2, §3.3). Writes are atomic
 * (a rename over the target, so a write never changes another name's file); every `.git` and
 * the policy's deny list are read-only under every case variant (confinePath).
 * @internal exported for workspace.spec.ts
 */
export const workspaceWrite: EffectHandler = {
  ops: ['write', 'edit'],
  scopes: [WORKTREE_SCOPE],
  async run(payload, ctx) {
    const op = payload.op as 'write' | 'edit';
    const path = payloadString(payload, 'path');
    const content = op === 'write' ? payloadString(payload, 'content') : '';
    const oldText = op === 'edit' ? payloadString(payload, 'old_text') : '';
    const newText = op === 'edit' ? payloadString(payload, 'new_text') : '';
    const target = confined(ctx, op, path, 'write');
    if (typeof target !== 'string') return target;
    try {
      if (op === 'write') {
        await inParent(ctx, target, true, (at) =>
          writeFileAtomic(at, Buffer.from(content, 'utf8')),
        );
        return { ok: true };
      }
      return await inParent(ctx, target, false, (at) => edit(ctx, at, path, oldText, newText));
    } catch (err) {
      if (err instanceof ConfineRaceError) return refuse(raceText(ctx, op, path));
      return refuse(fileErrorText(op, path, op === 'write' ? 'open' : 'openat', err));
    }
  },
};

/** ailang-edit's read-replace-write of the one occurrence, on the file held at `target`. */
async function edit(
  ctx: HandlerContext,
  target: string,
  path: string,
  oldText: string,
  newText: string,
): Promise<HandlerOutput> {
  const file = await readRegularFile(ctx, target, 'edit', path, Number.POSITIVE_INFINITY);
  if (!file.ok) return refuse(file.refused);
  const before = file.content;
  const count = occurrences(before, oldText);
  if (count === 0)
    return refuse(`edit ${path}: old_text not found — the file may have changed; read it again`);
  if (count > 1)
    return refuse(
      `edit ${path}: old_text occurs ${count} times; include more context so it is unique`,
    );
  const at = before.indexOf(oldText);
  await writeFileAtomic(
    target,
    Buffer.from(before.slice(0, at) + newText + before.slice(at + oldText.length), 'utf8'),
  );
  return { ok: true };
}

/**
 * Runs f on a confined path's name held through its parent's descriptor (confine/open.ts in
 * @world/ailang): the parent chain is re-walked from the worktree without following symlinks,
 * so a directory swapped for a symlink after the check is a ConfineRaceError, not a way out.
 * @param create make missing parent directories (ailang-write creates them)
 */
async function inParent<T>(
  ctx: HandlerContext,
  target: string,
  create: boolean,
  f: (at: string) => Promise<T>,
): Promise<T> {
  // The worktree itself is a real path with no parent to hold: the operation reports it.
  if (target === ctx.worktree) return f(target);
  const segments = target.slice(ctx.worktree.length + 1).split('/');
  const held = openParent(ctx.worktree, segments, create);
  try {
    return await f(held.path);
  } finally {
    held.close();
  }
}

/** A component swapped for a symlink after the check: refused as the escape it would be. */
function raceText(ctx: HandlerContext, verb: FileVerb, path: string): string {
  return toolRefusalText(verb, path, ctx.worktree, { kind: 'escape' });
}

/** The default registry: the two workspace effects (the AILANG effects are plugged in later). */
export function workspaceHandlers(): Record<string, EffectHandler> {
  return { 'Workspace.Read': workspaceRead, 'Workspace.Write': workspaceWrite };
}

/**
 * The handler's path through World's one confinement rule (confinePath; world-spec §8.2) with
 * the episode policy's deny list: the absolute path to touch, or the refusal output.
 * @throws HandlerInputError for an empty path or one containing NUL (a malformed payload)
 */
function confined(
  ctx: HandlerContext,
  verb: FileVerb,
  path: string,
  access: Access,
): string | HandlerOutput {
  if (path === '' || path.includes('\0'))
    throw new HandlerInputError('payload field "path" must be a non-empty path');
  // HandlerContext.worktree is already the real path: no realpath per call.
  const root = { given: ctx.worktree, real: ctx.worktree };
  try {
    const where = confinePath(root, path, access, ctx.policy.policy.fs_deny_write);
    return where.ok ? where.abs : refuse(toolRefusalText(verb, path, ctx.worktree, where.refusal));
  } catch (err) {
    return refuse(fileErrorText(verb, path, verb === 'write' ? 'open' : 'openat', err));
  }
}

/**
 * Non-overlapping occurrences of `needle` in `text`, as Go's strings.Count counts them (an empty
 * needle occurs once per code point plus once).
 * @internal exported for workspace.spec.ts
 */
export function occurrences(text: string, needle: string): number {
  if (needle === '') return [...text].length + 1;
  return text.split(needle).length - 1;
}

/**
 * Reads a file of the worktree as UTF-8, refusing anything that is not a regular file with one
 * link. The file is opened non-blocking and without following a last-component symlink, and the
 * checks run on the open descriptor (fstat), so a FIFO, a socket or a device swapped in after
 * the path was resolved can neither block the handler nor be read (a FIFO without a writer would
 * otherwise hold the episode's lease until the handler deadline), and neither can a hard link
 * made after it was confined (world-spec §8.2).
 * @param ctx the call (its worktree names the sandbox in a hard-link refusal)
 * @param abs the resolved absolute path (confinePath)
 * @param verb the tool verb, for the refusal text
 * @param path the path as the caller gave it, for the refusal text
 * @param maxBytes the largest size read (bytes; Infinity for edit, whose output carries no content)
 * @returns the content, or the refusal text (`read x: is a directory`, `… is not a regular file`,
 *   `… file is N bytes; at most M can be read`)
 * @throws the file system error of open/fstat/read (errno codes are mapped by the caller)
 */
async function readRegularFile(
  ctx: HandlerContext,
  abs: string,
  verb: FileVerb,
  path: string,
  maxBytes: number,
): Promise<{ ok: true; content: string } | { ok: false; refused: string }> {
  const notRegular = {
    ok: false as const,
    refused: `${verb} ${path}: ${path} is not a regular file`,
  };
  let handle;
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    // A unix socket cannot be opened (ENXIO): it is not a regular file either.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') return notRegular;
    throw err;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) {
      // The Go tool's texts: read stats before reading, edit fails at open (world-spec §3.1, §3.3).
      const syscall = verb === 'read' ? 'read' : 'openat';
      return { ok: false, refused: `${verb} ${path}: ${syscall} ${path}: is a directory` };
    }
    if (!info.isFile()) return notRegular;
    if (hasExtraLinks(info)) {
      const links = { kind: 'links' as const, links: info.nlink };
      return { ok: false, refused: toolRefusalText(verb, path, ctx.worktree, links) };
    }
    if (info.size > maxBytes) {
      return {
        ok: false,
        refused: `${verb} ${path}: file is ${info.size} bytes; at most ${maxBytes} can be read`,
      };
    }
    return { ok: true, content: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

function refuse(refused: string): HandlerOutput {
  return { ok: false, refused };
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many levels of symbolic links',
  EEXIST: 'file exists',
  ENAMETOOLONG: 'file name too long',
};

/**
 * The refusal text of a file system error, in the Go tool's shape
 * (`read nope.ail: openat nope.ail: no such file or directory`, world-spec §3.1); an error
 * without a known errno is rethrown (a handler failure).
 */
function fileErrorText(verb: FileVerb, path: string, syscall: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const text = code === undefined ? undefined : ERRNO_TEXT[code];
  if (text === undefined) throw err;
  return `${verb} ${path}: ${syscall} ${path}: ${text}`;
}
