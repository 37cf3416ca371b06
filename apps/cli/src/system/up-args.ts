// `world up`'s arguments: which services, how many replicas of each, and where the gateways bind.
import { DEFAULT_BIND, UP_MAX_REPLICAS, parseHostPort, type HostPort } from '@world/contracts';
import { CliError } from '../commands/util.js';

/** The services `world up` starts, in start order (the ledger first: it owns genesis). */
export const SERVICES = ['ledger', 'broker', 'planner', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** How many processes of each service. */
export type Replicas = Record<ServiceName, number>;

/**
 * Parses `--replicas gateway=2,planner=2,broker=3,ledger=2` (unnamed services get 1; each
 * service at most once).
 * @throws CliError (exit 2) naming the bad item, or the service named twice
 */
export function parseReplicas(text: string | undefined): Replicas {
  const replicas: Replicas = { ledger: 1, broker: 1, planner: 1, gateway: 1 };
  if (text === undefined || text === '') return replicas;
  const named = new Set<string>();
  for (const item of text.split(',')) {
    const m = /^(ledger|broker|planner|gateway)=([1-9][0-9]?)$/.exec(item.trim());
    if (m === null || Number(m[2]) > UP_MAX_REPLICAS) {
      throw new CliError(
        `--replicas: "${item}" must be <service>=<1..${UP_MAX_REPLICAS}> with service ledger, broker, planner or gateway`,
        2,
      );
    }
    if (named.has(m[1]!))
      throw new CliError(`--replicas: ${m[1]} is given more than once ("${text}")`, 2);
    named.add(m[1]!);
    replicas[m[1] as ServiceName] = Number(m[2]);
  }
  return replicas;
}

/**
 * Parses WORLD_BIND (default DEFAULT_BIND) for `world up` with the gateway's host:port grammar
 * (parseHostPort). Port 0 is refused too: the replicas take consecutive ports from it.
 * @throws CliError (exit 2) when it is not host:port with a port of 1–65535
 */
export function parseUpBind(text: string | undefined): HostPort {
  const bind = parseHostPort(text ?? DEFAULT_BIND);
  if (bind === null || bind.port === 0)
    throw new CliError(`WORLD_BIND "${text}" must be host:port`, 2);
  return bind;
}
