import { CommonEnv, loadConfig, serveProcess } from '@world/runtime';
import { startGateway } from './boot.js';
import { loadGatewayConfig } from './config.js';
import { tuneGatewayHeap } from './heap.js';
import { SERVICE_NAME } from './identity.js';

// The distributed gateway process (DESIGN.md §5, serveProcess): env → config (exit 2 when
// malformed or when the bind leaves loopback without WORLD_BIND_PUBLIC=1) → HTTP edge over NATS
// (with /livez, /readyz, /metrics) → health port when WORLD_HEALTH_PORT is set → "ready". The
// process's own V8 heap growth is tuned first (heap.ts).
serveProcess(SERVICE_NAME, async () => {
  // Earlier full GCs keep the process under 200 MB RSS with 32 MCP clients (heap.ts).
  tuneGatewayHeap();
  const config = loadGatewayConfig();
  const healthEnv = loadConfig(
    SERVICE_NAME,
    CommonEnv.pick({ WORLD_HEALTH_PORT: true, WORLD_HEALTH_HOST: true }),
  );
  const gateway = await startGateway({
    transport: { kind: 'nats', url: config.natsUrl, prefix: config.prefix },
    bind: config.bind,
    bindPublic: true, // loadGatewayConfig already applied WORLD_BIND_PUBLIC
    worldHome: config.worldHome,
    publicReads: config.publicReads,
    operatorToken: config.operatorToken,
    operatorTokenFile: config.operatorTokenFile,
    callDeadlineMs: config.callDeadlineMs,
    dbPath: config.dbPath,
    replica: config.replica,
  });
  return {
    running: gateway,
    healthEnv,
    readyFields: { url: gateway.url, operatorTokenFile: gateway.operatorTokenFile },
  };
});
