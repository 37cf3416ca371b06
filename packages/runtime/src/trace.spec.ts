import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import {
  adoptInvocationId,
  callContext,
  currentCallMeta,
  currentTraceId,
  currentTraceparent,
  inSpan,
  serveHttp,
  serveMessage,
  withCallContext,
} from './trace.js';

// W3C Trace Context (traceparent = version-traceid-parentid-flags), carried from the HTTP request
// through every NATS hop (README "Tracing"). No tracer provider is registered
// here: spans are non-recording and pass the caller's span context on unchanged.
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe('call context and W3C trace context', () => {
  it.each([
    ['a valid traceparent header continues its trace', { traceparent: TRACEPARENT }, TRACEPARENT],
    [
      'an array-valued header uses its first value',
      { traceparent: [TRACEPARENT, 'x'] as unknown as string },
      TRACEPARENT,
    ],
    [
      'a malformed traceparent starts nothing (no valid context)',
      { traceparent: '00-xyz-1-01' },
      undefined,
    ],
    ['no header starts nothing without a tracer provider', {}, undefined],
  ])('serveHttp: %s', (_name, headers, expected) => {
    const call = serveHttp('POST', headers, {});
    expect(call.run(() => currentTraceparent())).toBe(expected);
    call.end();
  });

  it.each([
    [
      'carries the packet traceparent and invocation id',
      { traceparent: TRACEPARENT, invocationId: 'mcp:e:t' },
      { traceparent: TRACEPARENT, invocationId: 'mcp:e:t' },
    ],
    [
      'has neither when the packet carries none',
      {},
      { traceparent: undefined, invocationId: undefined },
    ],
    [
      'ignores a non-string invocation id',
      { invocationId: 7 as unknown as string },
      { traceparent: undefined, invocationId: undefined },
    ],
  ])('serveMessage: %s', (_name, meta, expected) => {
    const call = serveMessage('ledger.commit', meta, {});
    expect(call.run(() => currentCallMeta())).toEqual(expected);
    call.end();
  });

  it('runs a served message in exactly its packet context, not merged with the caller context', () => {
    withCallContext({ invocationId: 'a2a:outer:1' }, () => {
      const call = serveMessage('ledger.head', {}, {});
      expect(call.run(() => callContext()?.invocationId)).toBeUndefined();
    });
  });

  it('merges withCallContext over the current context', () => {
    const call = serveMessage('planner.invoke', { traceparent: TRACEPARENT }, {});
    call.run(() =>
      withCallContext({ invocationId: 'mcp:e:t2' }, () => {
        expect(currentCallMeta()).toEqual({ traceparent: TRACEPARENT, invocationId: 'mcp:e:t2' });
        expect(currentTraceId()).toBe(TRACE_ID);
      }),
    );
  });

  it('forwards a plain traceparent when no OpenTelemetry context is set', () => {
    withCallContext({ traceparent: TRACEPARENT }, () =>
      expect(currentTraceparent()).toBe(TRACEPARENT),
    );
  });

  it('adopts an invocation id learned from a reply only when the context has none', () => {
    const call = serveHttp('POST', {}, {});
    call.run(() => {
      adoptInvocationId('mcp:e:first');
      adoptInvocationId('mcp:e:second');
      expect(callContext()?.invocationId).toBe('mcp:e:first');
    });
    expect(() => adoptInvocationId('mcp:e:outside')).not.toThrow();
    expect(callContext()).toBeUndefined();
  });

  it('adopts an id learned inside a phase span into the request it is a phase of, once', async () => {
    // The gateway's MCP tools/call span runs inside its HTTP request, whose `http request` line
    // is written after the span ended: that line carries the id the planner's reply named.
    const call = serveHttp('POST', { traceparent: TRACEPARENT }, {});
    const seen = await call.run(async () => {
      const inside = await inSpan('tools/call ailang-read', {}, () =>
        inSpan('execute', {}, () => {
          adoptInvocationId('mcp:e:first');
          return callContext()?.invocationId;
        }),
      );
      adoptInvocationId('mcp:e:second');
      return [inside, callContext()?.invocationId];
    });
    expect(seen).toEqual(['mcp:e:first', 'mcp:e:first']);
    expect(call.run(() => callContext()?.invocationId)).toBe('mcp:e:first');
  });

  it('keeps the id a phase span inherited and never overwrites the request one', async () => {
    const call = serveHttp('POST', {}, {});
    const seen = await call.run(() =>
      withCallContext({ invocationId: 'a2a:e:own' }, () =>
        inSpan('commit', {}, () => {
          adoptInvocationId('mcp:e:other');
          return callContext()?.invocationId;
        }),
      ),
    );
    expect(seen).toBe('a2a:e:own');
    expect(call.run(() => callContext()?.invocationId)).toBeUndefined();
  });

  it('has no trace id outside a traced call', () => {
    expect(currentTraceId()).toBeUndefined();
    withCallContext({ otel: ROOT_CONTEXT }, () => expect(currentTraceId()).toBeUndefined());
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
