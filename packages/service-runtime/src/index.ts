export * from './start-domain-service';
export * from './embedded-service';
export * from './periodic-job';
export * from './dead-letter.routes';
