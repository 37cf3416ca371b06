export { startPostgresServer, type PostgresServer, type PostgresServerOptions } from './server.js';
export { clusterState, CLUSTER_MARKER, type ClusterState } from './cluster.js';
export { CLUSTER_USER } from './owner.js';
