/**
 * Canonical transition source bytes (world-internals §4, `canon.Source`): valid UTF-8 without BOM
 * or NUL; CRLF and CR become LF; trailing spaces and tabs are stripped per line; trailing empty
 * lines are dropped; a non-empty result ends with exactly one LF. Idempotent.
 * @throws Error when the text holds a BOM or a NUL
 */
export function canonicalSource(text: string): string {
  if (text.startsWith('\uFEFF')) throw new Error('transition source must not start with a BOM');
  if (text.includes('\u0000')) throw new Error('transition source must not contain NUL');
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
