/**
 * What a request body may be, end to end on a booted World in both run modes: bytes that are
 * not UTF-8 are refused on every route that reads a body — /mcp and /a2a/jsonrpc with JSON-RPC
 * -32700, /a2a tasks/send with world-spec §6.5's -32600, /v1 with 400 — never decoded with
 * U+FFFD and run or written (RFC 8259 §8.1); and a tool argument named `__proto__` reaches the
 * plan, which refuses it as an unknown argument (world-spec §3.0 step 5) instead of the call
 * running without it — through the official MCP clients of both eras and raw bodies.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FULL_GRANTS, MODES, startTestSystem, type TestSystem } from '../support/system.js';

const SHA = /^sha256:[0-9a-f]{64}$/;
const READ_PROTO_REFUSAL = 'unknown argument "__proto__"; ailang-read admits only: path';

/** UTF-8 of `text` with each `\u0000` replaced by the byte 0xFF, which no UTF-8 text holds. */
const withFF = (text: string): Buffer =>
  Buffer.concat(
    text
      .split('\u0000')
      .flatMap((part, i) =>
        i === 0 ? [Buffer.from(part)] : [Buffer.from([0xff]), Buffer.from(part)],
      ),
  );

describe.each(MODES)('request bodies (%s mode)', (mode) => {
  let w: TestSystem;
  let token: string;
  let worktree: string;

  const post = async (path: string, body: Buffer | string, bearer = token) => {
    const res = await fetch(`${w.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bearer}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body,
    });
    return { status: res.status, body: await res.text() };
  };
  /** The head world and the file a write would create: what a refused body leaves unchanged. */
  const state = async () => [(await w.get('/v1/head')).text, existsSync(join(worktree, 'u.txt'))];

  beforeAll(async () => {
    w = await startTestSystem(mode);
    worktree = await w.episode('bodies', { 'a.txt': 'hello\n' });
    token = await w.session('bodies', FULL_GRANTS);
  });
  afterAll(async () => {
    await w?.close();
  });

  describe('a body that is not UTF-8 is refused and nothing runs', () => {
    it('/mcp: 400 with JSON-RPC -32700, no file written, no entry', async () => {
      const before = await state();
      const answer = await post(
        '/mcp',
        withFF(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ailang-write","arguments":{"path":"u.txt","content":"a\u0000b"}}}',
        ),
      );
      expect(answer).toEqual({
        status: 400,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the request body is not valid UTF-8"}}',
      });
      expect(await state()).toEqual(before);
    });

    it('/a2a/jsonrpc: -32700, no entry', async () => {
      const before = await state();
      const answer = await post(
        '/a2a/jsonrpc',
        withFF(
          '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"path":"u.txt","content":"a\u0000b"}}]},"metadata":{"skill_id":"ailang-write"}}}',
        ),
      );
      expect(answer).toEqual({
        status: 200,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the request body is not JSON"}}',
      });
      expect(await state()).toEqual(before);
    });

    it('/a2a tasks/send: -32600 invalid JSON-RPC request (world-spec §6.5), no entry', async () => {
      const before = await state();
      const answer = await post(
        '/a2a',
        withFF(
          '{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"t-utf8","metadata":{"skill_id":"ailang-write"},"message":{"role":"user","parts":[{"type":"data","data":{"path":"u.txt","content":"a\u0000b"}}]}}}',
        ),
      );
      expect(answer).toEqual({
        status: 200,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid JSON-RPC request"}}',
      });
      expect(await state()).toEqual(before);
    });

    it.each([
      ['/v1/commit', '{"world":"\u0000"}'],
      ['/v1/operator/episodes', '{"episodeId":"e\u0000"}'],
    ])('%s: 400 BadRequest', async (path, text) => {
      const before = await state();
      // The operator credential passes both routes' authorization, so the body is what is judged.
      const answer = await post(path, withFF(text), w.operatorToken);
      expect(answer).toEqual({
        status: 400,
        body: '{"error":{"class":"BadRequest","message":"body is not valid UTF-8"}}',
      });
      expect(await state()).toEqual(before);
    });
  });

  describe('an argument named __proto__ is refused as unknown, not dropped', () => {
    const refusedRead = (out: unknown) =>
      expect(out).toEqual({
        ok: false,
        refused: READ_PROTO_REFUSAL,
        world: { effects: [], plan: expect.stringMatching(SHA) },
      });

    it.each([
      ['the 2026 client', 'v2Client'],
      ['the 2025 client', 'v1Client'],
    ] as const)('through %s', async (_era, which) => {
      const client = await w[which](token);
      const res = await client.callTool({
        name: 'ailang-read',
        arguments: JSON.parse('{"path":"a.txt","__proto__":{"path":"b.txt"}}') as Record<
          string,
          unknown
        >,
      });
      refusedRead(res.structuredContent);
    });

    it.each([
      ['first', '{"__proto__":1,"path":"a.txt"}'],
      ['last', '{"path":"a.txt","__proto__":null}'],
    ])('in a raw /mcp body, listed %s', async (_where, args) => {
      const answer = await post(
        '/mcp',
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ailang-read","arguments":${args}}}`,
      );
      const data = answer.body.split('\n').find((l) => l.startsWith('data: '))!;
      refusedRead(JSON.parse(data.slice('data: '.length)).result.structuredContent);
    });

    it('in an A2A tasks/send data part', async () => {
      const answer = await post(
        '/a2a',
        '{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"t-proto","metadata":{"skill_id":"ailang-read"},"message":{"role":"user","parts":[{"type":"data","data":{"path":"a.txt","__proto__":{}}}]}}}',
      );
      refusedRead(JSON.parse(answer.body).result.artifacts[0].parts[0].data);
    });

    it('in a /v1 body: 400 unknown field', async () => {
      const answer = await post(
        '/v1/operator/episodes',
        '{"episodeId":"proto","__proto__":{}}',
        w.operatorToken,
      );
      expect(answer).toEqual({
        status: 400,
        body: '{"error":{"class":"BadRequest","message":"unknown field \\"__proto__\\""}}',
      });
    });
  });
});
