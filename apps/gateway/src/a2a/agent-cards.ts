/**
 * The session-scoped agent cards: the A2A 1.0 card at `/.well-known/agent-card.json` (with its
 * v0.3 rendering for clients that send no `A2A-Version`) and the reference card at
 * `/.well-known/agent.json` (world-spec §5.13). Skills are exactly the session's tool surface, in
 * registry order. Pure: the caller reads the surface and the request's origin.
 */
import { AgentCard } from '@a2a-js/sdk';
import type { ToolDescriptor } from '@world/contracts';
import { DAEMON_VERSION, MCP_SERVER_NAME } from '../identity.js';

/** Where the current protocol's JSON-RPC endpoint is mounted (both 1.0 and 0.3 answer there). */
const A2A_JSONRPC_PATH = '/a2a/jsonrpc';
/** The A2A protocol versions the JSON-RPC endpoint serves, preferred first (ecosystem.md §8). */
const A2A_VERSIONS = ['1.0', '0.3'] as const;
/** The only binding World serves (A2A 1.0 `protocolBinding`). */
const A2A_BINDING = 'JSONRPC';
/** Input and output modes: arguments and outputs are JSON objects. */
const A2A_MODES = ['application/json'];
/** The security scheme name the cards declare for the session bearer credential. */
const BEARER_SCHEME = 'session';

const DESCRIPTION =
  'World: a provenance-first tool host. Each skill is a tool; send its arguments as one data ' +
  'part with metadata.skill_id naming it. Every call is committed to an append-only log.';

/**
 * The A2A 1.0 card as JSON (`AgentCard.toJSON`, so no internal `$case` field leaks — ecosystem.md
 * §8): the JSON-RPC endpoint at 1.0 and at 0.3, no streaming, no push, bearer auth.
 * @param origin `<scheme>://<host>` of the request (world-spec §5.13 `url`)
 */
export function currentCardJson(tools: ToolDescriptor[], origin: string): unknown {
  const url = `${origin}${A2A_JSONRPC_PATH}`;
  const json = AgentCard.toJSON({
    name: MCP_SERVER_NAME,
    description: DESCRIPTION,
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({
      url,
      protocolBinding: A2A_BINDING,
      tenant: '',
      protocolVersion,
    })),
    provider: undefined,
    version: DAEMON_VERSION,
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {
      [BEARER_SCHEME]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: 'the session credential', scheme: 'Bearer', bearerFormat: '' },
        },
      },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: { list: [] } } }],
    defaultInputModes: A2A_MODES,
    defaultOutputModes: A2A_MODES,
    skills: tools.map((tool) => ({
      id: tool.id,
      name: tool.title,
      description: tool.description,
      tags: [],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  }) as Record<string, unknown>;
  // ProtoJSON drops empty lists, but 1.0 requires `skills` and each skill's `tags`.
  return {
    ...json,
    skills: tools.map((tool) => ({
      id: tool.id,
      name: tool.title,
      description: tool.description,
      tags: [],
    })),
  };
}

/**
 * The same card as a v0.3 client reads it: top-level `url`, `preferredTransport` and
 * `protocolVersion` naming the 0.3 interface, v0.3 security shapes, and the 1.0 interfaces
 * embedded for clients that understand both (the SDK's own compat rendering does the same).
 */
export function legacyCardJson(tools: ToolDescriptor[], origin: string): unknown {
  const url = `${origin}${A2A_JSONRPC_PATH}`;
  return {
    name: MCP_SERVER_NAME,
    description: DESCRIPTION,
    version: DAEMON_VERSION,
    url,
    preferredTransport: A2A_BINDING,
    protocolVersion: '0.3',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: A2A_MODES,
    defaultOutputModes: A2A_MODES,
    skills: tools.map((tool) => ({
      id: tool.id,
      name: tool.title,
      description: tool.description,
      tags: [],
    })),
    securitySchemes: {
      [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: 'the session credential' },
    },
    security: [{ [BEARER_SCHEME]: [] }],
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({
      url,
      protocolBinding: A2A_BINDING,
      protocolVersion,
    })),
  };
}

/**
 * The reference card of world-spec §5.13, its keys exactly: `url` is the request's origin, skills
 * carry `tags: []` and `examples: []`.
 */
export function referenceCardJson(tools: ToolDescriptor[], origin: string): unknown {
  return {
    name: MCP_SERVER_NAME,
    description: DESCRIPTION,
    url: origin,
    version: DAEMON_VERSION,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: A2A_MODES,
    defaultOutputModes: A2A_MODES,
    skills: tools.map((tool) => ({
      id: tool.id,
      name: tool.title,
      description: tool.description,
      tags: [],
      examples: [],
    })),
  };
}
