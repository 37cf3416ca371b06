/**
 * The deployment test's hands on the Docker engine: the compose CLI, container state, and a scan
 * of image layers (infra/README.md "Testing the deployment"). Everything goes through the real
 * `docker` and compose CLIs, as an operator's commands do.
 */
import { execFile, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { extract } from 'tar-stream';

/** What one command left: its exit code and both streams. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no shell), with `env` over the test's environment. */
export function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        env: { ...process.env, ...opts.env },
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 600_000,
        maxBuffer: 256 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command that must succeed; its error names the command and its output. */
export async function must(
  cmd: string,
  args: string[],
  opts: Parameters<typeof run>[2] = {},
): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${r.code}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
    );
  return r.stdout;
}

/**
 * The compose CLI of this machine: `docker compose` (v2) when the plugin answers, otherwise
 * `docker-compose` (1.29 from Debian). WORLD_COMPOSE names another (e.g. `docker-compose`).
 */
export async function composeCommand(): Promise<string[]> {
  if (process.env.WORLD_COMPOSE) return process.env.WORLD_COMPOSE.split(' ');
  if ((await run('docker', ['compose', 'version'])).code === 0) return ['docker', 'compose'];
  return ['docker-compose'];
}

/** A running container of the project. */
export interface Container {
  id: string;
  name: string;
  service: string;
  /** `healthy`, `unhealthy`, `starting`, or `none` without a healthcheck */
  health: string;
  running: boolean;
}

/** Every container (running or not) of compose project `project`, by name. */
export async function containersOf(project: string): Promise<Container[]> {
  const ids = (
    await must('docker', ['ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`])
  )
    .split('\n')
    .filter(Boolean);
  if (ids.length === 0) return [];
  const inspected = JSON.parse(await must('docker', ['inspect', ...ids])) as Array<{
    Id: string;
    Name: string;
    Config: { Labels: Record<string, string> };
    State: { Running: boolean; Health?: { Status: string } };
  }>;
  return inspected
    .map((c) => ({
      id: c.Id,
      name: c.Name.replace(/^\//, ''),
      service: c.Config.Labels['com.docker.compose.service'] ?? '',
      health: c.State.Health?.Status ?? 'none',
      running: c.State.Running,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The IPv4 address of a container on its (single) compose network. */
export async function containerIp(id: string): Promise<string> {
  const out = await must('docker', [
    'inspect',
    '--format',
    '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}',
    id,
  ]);
  const ip = out.trim().split(' ')[0];
  if (!ip) throw new Error(`container ${id} has no IP address`);
  return ip;
}

/** The host addresses a container publishes `port/tcp` on (`docker inspect` PortBindings). */
export async function publishedOn(id: string, port: number): Promise<string[]> {
  const out = await must('docker', [
    'inspect',
    '--format',
    `{{json (index .HostConfig.PortBindings "${port}/tcp")}}`,
    id,
  ]);
  const bindings = JSON.parse(out) as Array<{ HostIp: string; HostPort: string }> | null;
  return (bindings ?? []).map((b) => `${b.HostIp}:${b.HostPort}`);
}

/** What a scan of an image found: file paths and needle names, each once. */
export interface ScanFindings {
  gitPaths: string[];
  needles: string[];
}

/** A path that is, or is inside, a `.git` directory (or a worktree's `.git` file). */
const GIT_PATH = /(^|\/)\.git(\/|$)/;

/**
 * Scans every layer of `images` (one `docker save`: a tar of layer tars, each layer once, and
 * the images' JSON configs) for paths named `.git` and for the bytes of each needle, in file
 * contents, configs and history alike. Needles are matched across chunk boundaries.
 */
export async function scanImages(
  images: string[],
  needles: Map<string, string>,
): Promise<ScanFindings> {
  const found = { gitPaths: new Set<string>(), needles: new Set<string>() };
  const wanted = [...needles].map(([name, value]) => ({ name, bytes: Buffer.from(value) }));
  const overlap = Math.max(1, ...wanted.map((w) => w.bytes.length)) - 1;

  const searchStream = async (stream: AsyncIterable<Buffer>) => {
    let tail = Buffer.alloc(0);
    for await (const chunk of stream) {
      // The chunk itself, then the seam between the previous chunk and this one.
      const seam = Buffer.concat([tail, chunk.subarray(0, overlap)]);
      for (const w of wanted)
        if (chunk.includes(w.bytes) || seam.includes(w.bytes)) found.needles.add(w.name);
      const joined = chunk.length >= overlap ? chunk : Buffer.concat([tail, chunk]);
      tail = Buffer.from(joined.subarray(joined.length - overlap));
    }
  };
  const scanTar = async (input: AsyncIterable<Buffer>, nested: boolean): Promise<void> => {
    const ex = extract();
    const done = (async () => {
      for await (const entry of ex) {
        const name = entry.header.name;
        if (nested && GIT_PATH.test(name.replace(/^\.\//, ''))) found.gitPaths.add(name);
        if (!nested && name.endsWith('.tar')) await scanTar(entry, true);
        else await searchStream(entry);
      }
    })();
    for await (const chunk of input) {
      if (!ex.write(chunk)) await new Promise((r) => ex.once('drain', r));
    }
    ex.end();
    await done;
  };

  const child = spawn('docker', ['save', ...images], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((r) => child.on('close', (code) => r(code ?? 1)));
  await scanTar(child.stdout, false);
  const code = await exited;
  if (code !== 0) throw new Error(`docker save ${images.join(' ')} exited ${code}: ${stderr}`);
  return { gitPaths: [...found.gitPaths].sort(), needles: [...found.needles].sort() };
}

/**
 * The certificates of a PEM bundle that Node does not already carry as roots (a proxy's CA, say),
 * each as the first line of its base64 body: the part a baked-in copy would contain verbatim.
 */
export function extraCertificates(pemFile: string): Map<string, string> {
  const known = new Set(rootCertificates.map((pem) => new X509Certificate(pem).fingerprint256));
  const out = new Map<string, string>();
  const pems = readFileSync(pemFile, 'utf8').match(
    /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g,
  );
  for (const pem of pems ?? []) {
    const cert = new X509Certificate(pem);
    if (known.has(cert.fingerprint256)) continue;
    const firstLine = pem.split('\n')[1]!.trim();
    out.set(`build CA ${cert.subject.replace(/\n/g, ', ')}`, firstLine);
  }
  return out;
}
