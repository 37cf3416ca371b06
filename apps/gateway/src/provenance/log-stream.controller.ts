import {
  Controller,
  Get,
  Headers,
  Inject,
  Query,
  Req,
  Res,
  UseGuards,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { RPC, type RpcClient } from '@world/runtime';
import { ReadAccessGuard } from '../auth/guards.js';
import { serveEventStream } from '../http/event-stream.js';
import { GATEWAY_LOG, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import type { LogSink } from '../log.js';
import { CommittedEvents, parseStreamStart, runLogStream } from './log-stream.js';
import { ReadLog } from './read-log.js';

/**
 * `GET /v1/log/stream?from=N`: the live tail (world-internals §7.4), same access as the other
 * `/v1` reads. Registered before the provenance controller so `stream` is never taken for a log
 * index. Open streams end when the gateway stops, so shutdown never waits for a run to finish.
 */
@Controller('v1/log')
export class LogStreamController implements OnModuleDestroy {
  private readonly events: CommittedEvents;
  private readonly open = new Set<AbortController>();

  constructor(
    @Inject(RPC) rpc: RpcClient,
    private readonly log: ReadLog,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(GATEWAY_LOG) private readonly operatorLog: LogSink,
  ) {
    this.events = new CommittedEvents(rpc);
  }

  @Get('stream')
  @UseGuards(ReadAccessGuard)
  async stream(
    @Query('from') from: unknown,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // A bad position is a 400 envelope, answered before the stream starts.
    const start = parseStreamStart(from, lastEventId);
    await serveEventStream(req, res, this.open, (signal, sink) =>
      runLogStream({
        log: this.log,
        events: this.events,
        start,
        runMs: this.settings.logStreamRunMs,
        signal,
        sink,
        onError: (err) =>
          this.operatorLog.warn({ err, from: start }, 'log stream ended by a failed read'),
      }),
    );
  }

  /** Ends every open stream and drops the event subscription (Nest calls it before the server closes). */
  onModuleDestroy(): void {
    for (const stop of this.open) stop.abort();
    this.events.close();
  }
}
