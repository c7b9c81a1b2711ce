export * from './pass';
export * from './rules';
export * from './table-rows';
export * from './timer';
