import { LibraryShapeError } from '@world/runtime';
import { assertSdkServesParsedBody } from './sdk-fetch-adapter.js';

const shapeError = (problem: string) =>
  new LibraryShapeError('@modelcontextprotocol/server', '2.4.0', problem, {
    name: "the gateway's MCP hand-off (answerFromSdk)",
    file: 'apps/gateway/src/mcp/sdk-fetch-adapter.ts',
    writtenAgainst: '2.4.0',
  });

/** A handler of the SDK's shape whose fetch answers with what `answer` makes of the request. */
const handlerAnswering = (answer: (request: Request) => Promise<Response>) => () => ({
  fetch: answer,
  close: async () => undefined,
});

describe('assertSdkServesParsedBody: the start-up check of the MCP hand-off', () => {
  it('passes on the installed SDK (@modelcontextprotocol/server 2.4.0)', async () => {
    await expect(assertSdkServesParsedBody()).resolves.toBeUndefined();
  });

  it('refuses a handler without fetch with the exact LibraryShapeError', async () => {
    const err = await assertSdkServesParsedBody(() => ({ close: async () => undefined })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LibraryShapeError);
    expect((err as Error).message).toBe(
      '@modelcontextprotocol/server 2.4.0: createMcpHandler() returned no fetch(request, options) ' +
        "function; the gateway's MCP hand-off (answerFromSdk) relies on it (written against " +
        '2.4.0): check apps/gateway/src/mcp/sdk-fetch-adapter.ts before upgrading',
    );
  });

  it('refuses a handler without close', async () => {
    await expect(
      assertSdkServesParsedBody(() => ({ fetch: async () => new Response(null) })),
    ).rejects.toThrow(shapeError('createMcpHandler() returned no close() function'));
  });

  it('refuses an SDK that reads the request body instead of the given parsedBody', async () => {
    // What such an SDK answers to the body-less Request the hand-off sends.
    const readsTheStream = handlerAnswering(async (request) => {
      const text = await request.text();
      return text === ''
        ? Response.json(
            {
              jsonrpc: '2.0',
              error: { code: -32700, message: 'Parse error: Invalid JSON' },
              id: null,
            },
            { status: 400 },
          )
        : new Response(text);
    });
    await expect(assertSdkServesParsedBody(readsTheStream)).rejects.toThrow(
      shapeError(
        'fetch(request, { parsedBody }) answered a ping sent without a request body with 400 ' +
          JSON.stringify(
            '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"},"id":null}',
          ) +
          ', not 200 and {"jsonrpc":"2.0","id":"world-sdk-probe","result":{}}: the SDK no longer ' +
          'reads the given parsedBody instead of the request body',
      ),
    );
  });

  it('accepts the ping answered as plain JSON as well as one SSE event', async () => {
    const json = handlerAnswering(async () =>
      Response.json({ result: {}, jsonrpc: '2.0', id: 'world-sdk-probe' }),
    );
    await expect(assertSdkServesParsedBody(json)).resolves.toBeUndefined();
  });
});
