import { PinoNestLogger, captureLogs, logger } from './logger.js';

describe('PinoNestLogger: a quiet start-up', () => {
  it('writes Nest start-up bookkeeping (route maps, module inits) at debug, other lines at info', () => {
    const capture = captureLogs('info');
    try {
      const nest = new PinoNestLogger(logger);
      nest.log('Mapped {/mcp, ALL} route', 'RouterExplorer');
      nest.log('McpController {/}:', 'RoutesResolver');
      nest.log('GatewayModule dependencies initialized', 'InstanceLoader');
      nest.log('Starting Nest application...', 'NestFactory');
      nest.log('Nest application successfully started', 'NestApplication');
      nest.log('Nest microservice successfully started', 'NestMicroservice');
      nest.log('a line of its own', 'SomethingElse');
      nest.warn('a warning', 'RouterExplorer');
      expect(capture.records.map((r) => [r['level'], r['context'], r['msg']])).toEqual([
        [30, 'SomethingElse', 'a line of its own'],
        [40, 'RouterExplorer', 'a warning'],
      ]);
    } finally {
      capture.stop();
    }
  });

  it('keeps the route maps at debug level', () => {
    const capture = captureLogs('debug');
    try {
      new PinoNestLogger(logger).log('Mapped {/mcp, ALL} route', 'RouterExplorer');
      expect(capture.records.map((r) => [r['level'], r['msg']])).toEqual([
        [20, 'Mapped {/mcp, ALL} route'],
      ]);
    } finally {
      capture.stop();
    }
  });
});
