/**
 * Upstream's `_sanitize_for_json`: a lone surrogate (a `\ud800` escape with no partner, which JSON allows and a model
 * may write) cannot be encoded in UTF-8, so NeMo Gym 0.7.0's terminus_judge replaces each in its verify answer, as
 * Python's `encode("utf-8", "surrogatepass").decode("utf-8", "replace")` does: three U+FFFD per surrogate, one per
 * byte of its encoding. Surrogate pairs are one character in both languages and stay.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const REPLACEMENT = '\ufffd\ufffd\ufffd';

export function sanitizeString(text: string): string {
  return text.replace(LONE_SURROGATE, REPLACEMENT);
}

/** A copy of a JSON value with every string (object keys too) sanitized. */
export function sanitizeJson<T>(value: T): T {
  if (typeof value === 'string') return sanitizeString(value) as T;
  if (Array.isArray(value)) return value.map(sanitizeJson) as T;
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  // defineProperty: a "__proto__" key stays a key, as in Python's dict.
  for (const [key, entry] of Object.entries(value)) Object.defineProperty(copy, sanitizeString(key), { value: sanitizeJson(entry), enumerable: true, writable: true, configurable: true });
  return copy as T;
}
