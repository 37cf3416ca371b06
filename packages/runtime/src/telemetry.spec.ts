import { ConfigError } from './config.js';
import { startTelemetry, telemetryEnabled } from './telemetry.js';

describe('telemetryEnabled (OpenTelemetry SDK environment variables)', () => {
  const rows: Array<[string, NodeJS.ProcessEnv, boolean]> = [
    ['off when no endpoint is set', {}, false],
    [
      'on with OTEL_EXPORTER_OTLP_ENDPOINT',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
      true,
    ],
    [
      'on with the traces endpoint',
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' },
      true,
    ],
    ['off with an empty endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [
      'off with OTEL_SDK_DISABLED=true',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' },
      false,
    ],
    [
      'off with OTEL_TRACES_EXPORTER=none',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' },
      false,
    ],
  ];
  it.each(rows)('%s', (_row, env, expected) => {
    expect(telemetryEnabled(env)).toBe(expected);
  });
});

describe('startTelemetry', () => {
  it('starts nothing when export is off', () => {
    expect(startTelemetry('ledger', 'world-ledger', {})).toBe(false);
  });

  it('refuses a protocol it cannot export with, naming the variable', () => {
    expect(() =>
      startTelemetry('ledger', 'world-ledger', {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(
      new ConfigError(
        'ledger: invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported; use http/protobuf or http/json',
      ),
    );
  });
});
