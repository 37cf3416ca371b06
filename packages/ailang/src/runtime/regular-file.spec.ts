import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HARD_LINKED, NOT_REGULAR, readRegularText } from './regular-file.js';

describe('readRegularText (no FIFO, socket or device can block or be read)', () => {
  let dir: string;
  let server: Server;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ailang-regular-'));
    writeFileSync(join(dir, 'a.txt'), 'hello\n');
    writeFileSync(join(dir, 'b.txt'), 'linked\n');
    linkSync(join(dir, 'b.txt'), join(dir, 'b2.txt'));
    mkdirSync(join(dir, 'sub'));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    server = createServer();
    await new Promise<void>((ok) => server.listen(join(dir, 'sock'), ok));
  });
  afterAll(async () => {
    await new Promise<void>((ok) => server.close(() => ok()));
    rmSync(dir, { recursive: true, force: true });
  });

  const codeOf = (name: string): string | undefined => {
    try {
      readRegularText(join(dir, name));
      return undefined;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code;
    }
  };

  it('reads a regular file and reports its size first', () => {
    const sizes: number[] = [];
    expect([readRegularText(join(dir, 'a.txt'), (n) => sizes.push(n)), sizes]).toEqual([
      'hello\n',
      [6],
    ]);
  });

  it('refuses a FIFO without a writer at once, a socket, a directory, a hard-linked file and a missing file', () => {
    expect(['pipe', 'sock', 'sub', 'b2.txt', 'nope'].map(codeOf)).toEqual([
      NOT_REGULAR,
      NOT_REGULAR,
      'EISDIR',
      HARD_LINKED,
      'ENOENT',
    ]);
  });
});
