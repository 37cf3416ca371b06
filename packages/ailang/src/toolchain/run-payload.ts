import { Buffer } from 'node:buffer';
import { RUN_ARGV_ITEM_MAX_BYTES, RUN_ARGV_MAX_ITEMS, RUN_STDIN_MAX_BYTES } from '@world/contracts';
import { DEFAULT_RUN_CAPS, RUN_CAPS } from '../policy/policy.js';

/**
 * The handler-side check of an ailang-run payload (world-spec §3.5). The plan already refuses
 * bad arguments with these exact texts; the handler repeats the checks so a toolchain never
 * runs with input the plan would not have produced.
 */

/** A checked run payload. */
export interface RunPayload {
  path: string;
  argsJson: string | null;
  stdin: string;
  argv: string[];
  caps: string[];
}

/** Checks a run payload in the plan's order. @returns the payload, or the refusal text */
export function checkRunPayload(p: Record<string, unknown>): RunPayload | { refused: string } {
  if (p.path === undefined) return { refused: 'missing required argument "path"' };
  if (typeof p.path !== 'string') return { refused: 'argument "path" must be a string' };
  if (p.args_json !== undefined) {
    if (typeof p.args_json !== 'string')
      return { refused: 'argument "args_json" must be a string' };
    try {
      JSON.parse(p.args_json);
    } catch {
      return { refused: 'argument "args_json" must be a string holding JSON' };
    }
  }
  if (p.stdin !== undefined && typeof p.stdin !== 'string')
    return { refused: 'argument "stdin" must be a string' };
  const stdin = (p.stdin as string | undefined) ?? '';
  const stdinBytes = Buffer.byteLength(stdin, 'utf8');
  if (stdinBytes > RUN_STDIN_MAX_BYTES)
    return {
      refused: `argument "stdin" is ${stdinBytes} bytes; the limit is ${RUN_STDIN_MAX_BYTES}`,
    };
  let argv: string[] = [];
  if (p.argv !== undefined) {
    if (!Array.isArray(p.argv) || p.argv.some((a) => typeof a !== 'string')) {
      return { refused: 'argument "argv" must be an array of strings' };
    }
    argv = p.argv as string[];
    if (argv.length > RUN_ARGV_MAX_ITEMS)
      return {
        refused: `argument "argv" has ${argv.length} items; the limit is ${RUN_ARGV_MAX_ITEMS}`,
      };
    for (const a of argv) {
      const n = Buffer.byteLength(a, 'utf8');
      if (n > RUN_ARGV_ITEM_MAX_BYTES)
        return { refused: `an argv item is ${n} bytes; the limit is ${RUN_ARGV_ITEM_MAX_BYTES}` };
      if (a.includes('\0')) return { refused: 'an argv item contains a NUL byte' };
    }
  }
  let caps = [...DEFAULT_RUN_CAPS];
  if (p.caps !== undefined) {
    if (!Array.isArray(p.caps))
      return { refused: 'argument "caps" must be an array of capability names' };
    const seen = new Set<string>();
    for (const c of p.caps) {
      if (typeof c !== 'string')
        return { refused: 'argument "caps" must be an array of capability names' };
      if (!(RUN_CAPS as readonly string[]).includes(c)) {
        return { refused: `unknown capability "${c}"; caps admits only: ${RUN_CAPS.join(', ')}` };
      }
      if (seen.has(c)) return { refused: `capability "${c}" is listed twice` };
      seen.add(c);
    }
    if (seen.size === 0) return { refused: 'argument "caps" names no capability' };
    if (seen.has('Env') && seen.has('Net'))
      return { refused: 'caps names both Env and Net; one run takes at most one of them' };
    caps = [...seen].sort();
  }
  return { path: p.path, argsJson: (p.args_json as string | undefined) ?? null, stdin, argv, caps };
}
