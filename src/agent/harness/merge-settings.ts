type Settings = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Settings => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A CLI's generated settings with the user's `extra_config` merged over them, objects key by key. */
export function mergeSettings(base: Settings, extra: Settings): Settings {
  const merged = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] = isPlainObject(value) && isPlainObject(current) ? mergeSettings(current, value) : value;
  }
  return merged;
}
