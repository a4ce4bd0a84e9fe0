export * from './start-domain-service';
export * from './embedded-service';
