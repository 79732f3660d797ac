/**
 * A short, stable id of a config key (`dsr1|h200|sglang|fp8|…`, 100+ characters) for URLs and the API's
 * `hide` parameter: FNV-1a (32 bit) in base 36, at most 7 characters. Shared by the server and the UI.
 */
export function configId(configKey: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < configKey.length; i++) {
    h ^= configKey.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}
