/**
 * OpenTelemetry trace export from a World process, configured the SDK's standard way
 * (OpenTelemetry "SDK environment variables"): `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) turns it on; `OTEL_EXPORTER_OTLP_PROTOCOL` (or the
 * `_TRACES_` one) picks `http/protobuf` (the default) or `http/json`; `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` name the resource; `OTEL_TRACES_SAMPLER`/`_ARG` pick the sampler
 * (read by the SDK itself); `OTEL_EXPORTER_OTLP_HEADERS`/`_TIMEOUT` reach the exporter as the
 * SDK reads them. Off when no endpoint is set, `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`: then spans stay non-recording and only carry trace ids across hops.
 */
import { OTLPTraceExporter as OtlpHttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpHttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ConfigError } from './config.js';

/** The OTLP protocols World exports with (`grpc` would need a gRPC stack it does not carry). */
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

let provider: NodeTracerProvider | undefined;

/**
 * Whether the environment asks for trace export (see the module comment).
 * @internal exported for telemetry.spec.ts
 */
export function telemetryEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Starts exporting this process's spans when the environment asks for it (once per process;
 * later calls do nothing). The resource's `service.name` is `OTEL_SERVICE_NAME`, else
 * `serviceName`.
 * @param command the name a configuration error starts with (`gateway`, `world start`, …)
 * @param serviceName the default `service.name` (`world-gateway`, …)
 * @returns whether export is on
 * @throws ConfigError (exit 2) `<command>: invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL: …`
 */
export function startTelemetry(
  command: string,
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (provider !== undefined) return true;
  if (!telemetryEnabled(env)) return false;
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[variable] || 'http/protobuf').trim();
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new ConfigError(
      `${command}: invalid configuration: ${variable}: ${JSON.stringify(protocol)} is not supported; use ${OTLP_PROTOCOLS.join(' or ')}`,
    );
  }
  const exporter =
    protocol === 'http/json' ? new OtlpHttpJsonExporter() : new OtlpHttpProtoExporter();
  const resource = resourceFromAttributes({ 'service.name': serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  return true;
}

/** Exports what is buffered and stops export (a no-op when it is off). Never throws. */
export async function shutdownTelemetry(): Promise<void> {
  const running = provider;
  provider = undefined;
  await running?.shutdown().catch(() => undefined);
}
