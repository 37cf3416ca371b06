/**
 * The slice of a pino logger the gateway writes to. The process uses serviceLogger('gateway');
 * tests may pass a recorder to read the operator lines (world-internals §5.5 refusal lines).
 */
export interface LogSink {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
