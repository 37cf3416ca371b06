import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../commands/util.js';
import { assertUsable, clusterState, CLUSTER_MARKER } from './cluster.js';

describe('clusterState: what a WORLD_HOME pgdata holds (DESIGN.md §5)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'world-cluster-state-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('tells absent, empty, World cluster, PGlite database and anything else apart', async () => {
    const make = async (name: string, files: string[]) => {
      await mkdir(join(dir, name));
      for (const f of files) await writeFile(join(dir, name, f), '18\n');
      return join(dir, name);
    };
    const states = [
      await clusterState(join(dir, 'missing')),
      await clusterState(await make('empty', [])),
      await clusterState(await make('world', ['PG_VERSION', CLUSTER_MARKER])),
      await clusterState(await make('pglite', ['PG_VERSION', 'postgresql.conf'])),
      await clusterState(await make('other', ['notes.txt'])),
    ];
    expect(states).toEqual(['absent', 'absent', 'world', 'pglite', 'foreign']);
  });

  it('refuses a PGlite database and a foreign directory with one line each (exit 2)', () => {
    const refusal = (state: 'pglite' | 'foreign') => {
      try {
        assertUsable(state, '/h/pgdata');
        return 'accepted';
      } catch (err) {
        return [(err as CliError).exitCode, (err as Error).message];
      }
    };
    expect([refusal('pglite'), refusal('foreign')]).toEqual([
      [
        2,
        '/h/pgdata holds a PGlite database of an earlier World, which this World cannot open (it runs PostgreSQL 18); move it away or set another WORLD_HOME (nothing was changed)',
      ],
      [
        2,
        `/h/pgdata is not a PostgreSQL cluster World created (no ${CLUSTER_MARKER}); move it away or set another WORLD_HOME (nothing was changed)`,
      ],
    ]);
    expect(() => assertUsable('world', '/h/pgdata')).not.toThrow();
    expect(() => assertUsable('absent', '/h/pgdata')).not.toThrow();
  });
});
