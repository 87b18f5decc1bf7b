/** The test S3 server lives in support/, shared with the benches (bench/crash-soak-scale-out.ts). */
export * from '../../support/s3-server.ts';
