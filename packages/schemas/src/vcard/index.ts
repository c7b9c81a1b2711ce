export * from './lines';
export * from './parse';
export * from './serialize';
