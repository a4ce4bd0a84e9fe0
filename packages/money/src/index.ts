export * from './money';
export * from './cents-text';
