/** The test's own Redis lives in support/, shared with the benches (bench/redis-outage.ts). */
export * from '../../support/redis-server.ts';
