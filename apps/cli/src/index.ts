export { commands } from './commands/index';
