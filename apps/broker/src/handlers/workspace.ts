import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { INVOCATION_OUTPUT_MAX_BYTES } from '@world/contracts';
import { writeFileAtomic } from './atomic-write.js';
import {
  normalizeSegments,
  resolveInWorktree,
  writeRefusal,
  type FileVerb,
} from './confinement.js';
import {
  payloadString,
  type EffectHandler,
  type HandlerContext,
  type HandlerOutput,
} from './registry.js';

/** The symbolic scope every workspace tool asks for (world-spec §2.7, §3.0). */
export const WORKTREE_SCOPE = 'worktree';

/** `Workspace.Read`: op `read` → `{ok:true, content}` | `{ok:false, refused}` (world-spec §3.1). */
export const workspaceRead: EffectHandler = {
  ops: ['read'],
  scopes: [WORKTREE_SCOPE],
  async run(payload, ctx) {
    const path = payloadString(payload, 'path');
    const where = await resolveInWorktree(ctx.worktree, 'read', path);
    if (!where.ok) return refuse(where.refused);
    try {
      const file = await readRegularFile(where.abs, 'read', path, INVOCATION_OUTPUT_MAX_BYTES);
      return file.ok ? { ok: true, content: file.content } : refuse(file.refused);
    } catch (err) {
      return refuse(fileErrorText('read', path, 'openat', err));
    }
  },
};

/**
 * `Workspace.Write`: ops `write` (create or overwrite) and `edit` (replace the one occurrence of
 * `old_text`) → `{ok:true}` | `{ok:false, refused}` (world-spec §3.2, §3.3). Writes are atomic;
 * `.git` and the deny list are read-only under every case variant, checked on the path as given
 * and again after symlinks are resolved.
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
    const target = await writableTarget(ctx, op, path);
    if (typeof target !== 'string') return target;
    try {
      if (op === 'write') {
        await mkdir(dirname(target), { recursive: true });
        await writeFileAtomic(target, Buffer.from(content, 'utf8'));
        return { ok: true };
      }
      const file = await readRegularFile(target, 'edit', path, Number.POSITIVE_INFINITY);
      if (!file.ok) return refuse(file.refused);
      const before = file.content;
      const count = occurrences(before, oldText);
      if (count === 0)
        return refuse(
          `edit ${path}: old_text not found — the file may have changed; read it again`,
        );
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
    } catch (err) {
      return refuse(fileErrorText(op, path, op === 'write' ? 'open' : 'openat', err));
    }
  },
};

/** The default registry: the two workspace effects (the AILANG effects are plugged in later). */
export function workspaceHandlers(): Record<string, EffectHandler> {
  return { 'Workspace.Read': workspaceRead, 'Workspace.Write': workspaceWrite };
}

async function writableTarget(
  ctx: HandlerContext,
  verb: FileVerb,
  path: string,
): Promise<string | HandlerOutput> {
  const lexical = normalizeSegments(path);
  if (lexical !== null && !path.startsWith('/')) {
    const early = writeRefusal(verb, path, lexical);
    if (early !== null) return refuse(early);
  }
  const where = await resolveInWorktree(ctx.worktree, verb, path);
  if (!where.ok) return refuse(where.refused);
  const resolved = writeRefusal(verb, path, where.rel === '' ? [] : where.rel.split('/'));
  if (resolved !== null) return refuse(resolved);
  return where.abs;
}

/**
 * Non-overlapping occurrences of `needle` in `text`, as Go's strings.Count counts them (an empty
 * needle occurs once per code point plus once).
 */
export function occurrences(text: string, needle: string): number {
  if (needle === '') return [...text].length + 1;
  return text.split(needle).length - 1;
}

/**
 * Reads a file of the worktree as UTF-8, refusing anything that is not a regular file. The file
 * is opened non-blocking and without following a last-component symlink, and the checks run on
 * the open descriptor (fstat), so a FIFO, a socket or a device swapped in after the path was
 * resolved can neither block the handler nor be read (a FIFO without a writer would otherwise
 * hold the episode's lease until the handler deadline).
 * @param abs the resolved absolute path (resolveInWorktree)
 * @param verb the tool verb, for the refusal text
 * @param path the path as the caller gave it, for the refusal text
 * @param maxBytes the largest size read (bytes; Infinity for edit, whose output carries no content)
 * @returns the content, or the refusal text (`read x: is a directory`, `… is not a regular file`,
 *   `… file is N bytes; at most M can be read`)
 * @throws the file system error of open/fstat/read (errno codes are mapped by the caller)
 */
async function readRegularFile(
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
