export { commands } from './commands/index';
export { SETTINGS_PROCESSES, type SettingsProcess, settingsReadBy } from './settings-registry';
