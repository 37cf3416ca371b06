export { startPostgresServer, type PostgresServer } from './server.js';
