/**
 * One bounded HTTP request per call to the gateway's `/v1` routes (world-spec §7.3: 30 s client
 * timeout; an HTTP error is one line naming the path, the status and the REST envelope).
 */
import { CLIENT_TIMEOUT_MS } from '@world/contracts';
import { CliError } from '../util.js';

/** An answer of the gateway that is not a success, with its REST envelope (world-spec §5.1). */
export class GatewayHttpError extends CliError {
  constructor(
    readonly path: string,
    readonly status: number,
    readonly errorClass: string,
    readonly detail: string,
  ) {
    super(`${path} returned HTTP ${status} ${errorClass}: ${detail}`);
    this.name = 'GatewayHttpError';
  }
}

/** A raw answer. */
export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
}

/**
 * A client of one gateway with one (optional) Bearer credential.
 */
export class GatewayClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly timeoutMs: number = CLIENT_TIMEOUT_MS,
  ) {}

  /** The Authorization header of this client's credential (none without one). */
  headers(): Record<string, string> {
    return this.token === undefined ? {} : { authorization: `Bearer ${this.token}` };
  }

  /**
   * Sends one request and reads the whole answer, whatever its status.
   * @throws CliError when the gateway cannot be reached or the timeout ends
   */
  async raw(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...this.headers(),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return {
        status: res.status,
        contentType: res.headers.get('content-type') ?? '',
        text: await res.text(),
      };
    } catch (err) {
      throw unreachable(this.baseUrl, path, err);
    }
  }

  /**
   * Sends one request and parses a JSON success.
   * @throws GatewayHttpError for any non-2xx answer; CliError when unreachable
   */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.raw(method, path, body);
    if (answer.status < 200 || answer.status > 299) throw httpError(path, answer);
    try {
      return JSON.parse(answer.text) as T;
    } catch {
      throw new CliError(`${path} returned HTTP ${answer.status} with a body that is not JSON`);
    }
  }

  /** GET returning JSON. @throws as json */
  get<T>(path: string): Promise<T> {
    return this.json<T>('GET', path);
  }

  /**
   * GET returning JSON, or null on 404 NotFound.
   * @throws GatewayHttpError for any other non-2xx answer
   */
  async find<T>(path: string): Promise<T | null> {
    try {
      return await this.get<T>(path);
    } catch (err) {
      if (err instanceof GatewayHttpError && err.status === 404) return null;
      throw err;
    }
  }

  /**
   * GET returning the body text (text/plain routes such as /v1/head).
   * @throws GatewayHttpError for any non-2xx answer
   */
  async text(path: string): Promise<string> {
    const answer = await this.raw('GET', path);
    if (answer.status < 200 || answer.status > 299) throw httpError(path, answer);
    return answer.text;
  }
}

/** The error of a non-2xx answer: the REST envelope's class and message when there is one. */
export function httpError(path: string, answer: HttpAnswer): GatewayHttpError {
  try {
    const body = JSON.parse(answer.text) as {
      error?: {
        class?: unknown;
        message?: unknown;
        observedHead?: unknown;
        selectedHead?: unknown;
      };
    };
    const e = body.error;
    if (e !== undefined && typeof e.class === 'string' && typeof e.message === 'string') {
      const heads =
        typeof e.observedHead === 'string' && typeof e.selectedHead === 'string'
          ? ` (observedHead=${e.observedHead} selectedHead=${e.selectedHead})`
          : '';
      return new GatewayHttpError(path, answer.status, e.class, `${e.message}${heads}`);
    }
  } catch {
    // not an envelope: fall through to the raw text
  }
  const text = answer.text.trim().split('\n')[0] ?? '';
  return new GatewayHttpError(
    path,
    answer.status,
    answer.status === 401 ? 'Unauthorized' : 'Error',
    text === '' ? '(no body)' : text,
  );
}

/** The one-line error of a request that never got an answer. */
export function unreachable(baseUrl: string, path: string, err: unknown): CliError {
  const e = err as { name?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e?.name === 'TimeoutError')
    return new CliError(`${path}: no answer from ${baseUrl} within ${CLIENT_TIMEOUT_MS / 1000} s`);
  const why = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return new CliError(
    `cannot reach World at ${baseUrl} (${why}); is it running? (\`world start\`, or set WORLD_URL)`,
  );
}
