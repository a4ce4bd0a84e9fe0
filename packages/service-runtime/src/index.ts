export * from './start-http-service';
export * from './start-domain-service';
export * from './embedded-service';
export * from './service-descriptor';
export * from './periodic-job';
export * from './dead-letter.routes';
export * from './health.routes';
