import type { Request, Response } from 'express';

/** Where a stream writes its frames: `write` is false when the socket's buffer is full. */
export interface EventStreamSink {
  write(frame: string): boolean;
  /** resolves when the buffer has drained, or at once when the client has left */
  drained(): Promise<void>;
}

/**
 * Answers a request with a server-sent event stream (200, `text/event-stream`, not cached, not
 * buffered by a proxy) and runs `run` on it until it returns: `signal` aborts when the client
 * leaves or the server shuts down (each stream's controller sits in `open` meanwhile, for the
 * caller's onModuleDestroy), and the response ends afterwards whatever `run` did. Shared by GET
 * /v1/log/stream and the workbench's AG-UI run, so both leave and drain the same way.
 * @param open the caller's set of live streams
 * @param run writes the frames; a throw propagates after the response is ended
 */
export async function serveEventStream(
  req: Request,
  res: Response,
  open: Set<AbortController>,
  run: (signal: AbortSignal, sink: EventStreamSink) => Promise<unknown>,
): Promise<void> {
  const stop = new AbortController();
  open.add(stop);
  const leave = () => stop.abort();
  req.socket.on('close', leave);
  res.on('close', leave);
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  const sink: EventStreamSink = {
    write: (frame) => res.write(frame),
    drained: () =>
      new Promise<void>((resolve) => {
        if (stop.signal.aborted) return resolve();
        res.once('drain', resolve);
        stop.signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
  try {
    await run(stop.signal, sink);
  } finally {
    open.delete(stop);
    req.socket.off('close', leave);
    res.end();
  }
}
