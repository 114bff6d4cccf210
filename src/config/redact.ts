/**
 * Secrets never leave through the head server: values under keys that name a secret are replaced.
 * Children still receive the full config through their environment, as upstream.
 */
import { type ConfigDict, type ConfigValue, isDict } from './tree.ts';

export const REDACTED = '<redacted>';

/** `api_key`, `policy_api_key`, `hf_token`, `session_secret`, `password`...; not `max_tokens` or `tokenizer`. */
export function isSecretKey(key: string): boolean {
  const lower = key.toLowerCase();
  return /api_key|secret|password/.test(lower) || /(^|_)token$/.test(lower);
}

export interface RedactOptions {
  /** Also replace, whole, what keys naming headers hold: they carry credentials (`Authorization: Bearer ...`) under names no secret rule knows (upstream's exporters mask them too). */
  headers?: boolean;
}

export function redactSecrets(value: ConfigValue, options: RedactOptions = {}): ConfigValue {
  if (Array.isArray(value)) return value.map((child) => redactSecrets(child, options));
  if (!isDict(value)) return value;
  const out: ConfigDict = {};
  for (const [key, child] of Object.entries(value)) {
    const secret = isSecretKey(key) && child !== null && !isDict(child) && !Array.isArray(child) && child !== '';
    const header = options.headers === true && /header/i.test(key) && child !== null;
    out[key] = secret || header ? REDACTED : redactSecrets(child, options);
  }
  return out;
}
