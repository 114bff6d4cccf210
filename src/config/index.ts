export {
  COMMAND_LINE,
  CONFIG_DICT_ENV,
  CONFIG_PATH_ENV,
  DEFAULT_HEAD_SERVER_PORT,
  GlobalConfig,
  type LoadConfigOptions,
  formatHost,
  globalConfigFromDict,
  globalConfigFromYaml,
  loadGlobalConfig,
} from './global-config.ts';
export { MISSING, resolveAll, resolveAt } from './interpolation.ts';
export { type Override, parseOverride, parseOverrideValue } from './overrides.ts';
export { REDACTED, isSecretKey, redactSecrets } from './redact.ts';
export {
  RESERVED_TOP_LEVEL_KEYS,
  type ServerInstance,
  configPathOf,
  defaultSearchRoots,
  findServerDirectory,
} from './server-instances.ts';
export { type ConfigDict, ConfigSources, type ConfigValue, getAt, isDict, mergeInto, setAt } from './tree.ts';
export { dumpYaml, parseYamlConfig, readYamlConfig } from './yaml-file.ts';
