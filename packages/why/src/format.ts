/** How the client verbs show refs and values (world-spec §7.3 example lines). */
import { CLI_PREVIEW_CHARS, CLI_SHORT_REF_HEX } from '@world/contracts';

const PREFIX = 'sha256:';

/** `sha256:08ab69ae…` — a ref shortened for a human line; anything else unchanged. */
export function shortRef(ref: string): string {
  return ref.startsWith(PREFIX) && ref.length > PREFIX.length + CLI_SHORT_REF_HEX
    ? `${ref.slice(0, PREFIX.length + CLI_SHORT_REF_HEX)}…`
    : ref;
}

/** The first hex digits of a ref (log tail's `#<index> <entryHash 8 hex>`). */
export function refHex(ref: string): string {
  return ref.startsWith(PREFIX) ? ref.slice(PREFIX.length, PREFIX.length + CLI_SHORT_REF_HEX) : ref;
}

/**
 * A value as one line: its JSON text, or, when longer than CLI_PREVIEW_CHARS characters, the
 * start of it followed by `… (N bytes)` with the byte count of the whole JSON text.
 */
export function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  if (text.length <= CLI_PREVIEW_CHARS) return text;
  return `${text.slice(0, CLI_PREVIEW_CHARS)}… (${Buffer.byteLength(text, 'utf8')} bytes)`;
}

/** An epoch-milliseconds time as ISO 8601 UTC, to the second. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
