/**
 * A passive NATS observer (issue 7 "count NATS requests per call with a counting subscriber on
 * `<prefix>.>`"): it subscribes to `<prefix>.>` and to `_INBOX.>` on its own connection, counts
 * requests and events per subject, and times each request from its appearance to its reply's
 * (the reply goes to the request's inbox), so every hop's duration is seen from outside the
 * services, without adding anything to them.
 */
import { performance } from 'node:perf_hooks';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/** What the tap saw of one subject. */
export interface SubjectStats {
  requests: number;
  events: number;
  /** request → reply, as seen by the observer, ms (sorted) */
  latenciesMs: number[];
}

/** A started tap. */
export class NatsTap {
  private readonly stats = new Map<string, SubjectStats>();
  private readonly pending = new Map<string, { subject: string; t: number }>();
  private counting = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly subs: Subscription[],
  ) {}

  /** Connects and subscribes; counting starts with `start()`. */
  static async open(url: string, prefix: string): Promise<NatsTap> {
    const nc = await connect({ servers: [url], name: 'bench-tap' });
    const tap = new NatsTap(nc, []);
    const strip = `${prefix}.`;
    tap.subs.push(
      nc.subscribe(`${prefix}.>`, {
        callback: (err, msg) => {
          if (err !== null || !tap.counting) return;
          const subject = msg.subject.startsWith(strip)
            ? msg.subject.slice(strip.length)
            : msg.subject;
          const s = tap.entry(subject);
          if (msg.reply) {
            s.requests++;
            tap.pending.set(msg.reply, { subject, t: performance.now() });
          } else s.events++;
        },
      }),
      nc.subscribe('_INBOX.>', {
        callback: (err, msg) => {
          if (err !== null) return;
          const p = tap.pending.get(msg.subject);
          if (p === undefined) return;
          tap.pending.delete(msg.subject);
          tap.entry(p.subject).latenciesMs.push(performance.now() - p.t);
        },
      }),
    );
    await nc.flush();
    return tap;
  }

  private entry(subject: string): SubjectStats {
    let s = this.stats.get(subject);
    if (s === undefined) {
      s = { requests: 0, events: 0, latenciesMs: [] };
      this.stats.set(subject, s);
    }
    return s;
  }

  /** Clears the counts and starts counting. */
  start(): void {
    this.stats.clear();
    this.pending.clear();
    this.counting = true;
  }

  /** Stops counting and returns what was seen, per subject. */
  async stop(): Promise<Map<string, SubjectStats>> {
    await this.nc.flush();
    this.counting = false;
    for (const s of this.stats.values()) s.latenciesMs.sort((a, b) => a - b);
    return new Map(this.stats);
  }

  async close(): Promise<void> {
    for (const s of this.subs) s.unsubscribe();
    await this.nc.close();
  }
}
