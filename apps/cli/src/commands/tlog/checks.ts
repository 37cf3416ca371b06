/**
 * The printout of `world verify`: one ✓/✗ line per check, like `world why` (world-spec §7.3),
 * then a summary; exit 0 when every check holds, 3 (EXIT_INTEGRITY) when any fails.
 */
import { readFile } from 'node:fs/promises';
import { parseVerifierKey, type NoteVerifier } from '@world/tlog';
import { CliError } from '../util.js';

/** One check of `world verify`. */
export interface Check {
  ok: boolean;
  name: string;
  detail: string;
}

/** Width of the check-name column. */
const NAME_WIDTH = 'inclusion'.length + 2;

/** `  ✓ key        world.local/log-…+1a2b3c4d (…)`. */
export function checkLine(c: Check): string {
  return `  ${c.ok ? '✓' : '✗'} ${c.name.padEnd(NAME_WIDTH)}${c.detail}`;
}

/** `all 4 check(s) passed` or `1 of 4 check(s) failed`. */
export function checksSummary(checks: Check[]): string {
  const failed = checks.filter((c) => !c.ok).length;
  return failed === 0
    ? `all ${checks.length} check(s) passed`
    : `${failed} of ${checks.length} check(s) failed`;
}

/** The first line of a vkey file, or the text itself when it is a vkey. */
export async function readKeyText(fileOrKey: string): Promise<string> {
  try {
    return (await readFile(fileOrKey, 'utf8')).trim();
  } catch (err) {
    if (/^[^\s+]+\+[0-9a-fA-F]{8}\+\S+$/.test(fileOrKey)) return fileOrKey;
    throw new CliError(`--key ${fileOrKey}: ${(err as Error).message}`, 2);
  }
}

/** A verifier key as a check (✗ with the parser's message when malformed). */
export function keyCheck(
  text: string,
  from: string,
): { check: Check; verifier: NoteVerifier | null } {
  try {
    const verifier = parseVerifierKey(text);
    return { check: { ok: true, name: 'key', detail: `${text} (${from})` }, verifier };
  } catch (err) {
    return {
      check: { ok: false, name: 'key', detail: `${from}: ${(err as Error).message}` },
      verifier: null,
    };
  }
}
