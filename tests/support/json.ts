/** A parsed JSON value as an object, or an empty one when it is not an object. */
export function jsonObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}

/** The object a JSON text holds; an empty one when the text is not JSON or holds no object. */
export function parsedObject(text: string): Record<string, unknown> {
  try {
    return jsonObject(JSON.parse(text));
  } catch {
    return {};
  }
}

/** The value at a path of object keys and array indexes; undefined where the path leads nowhere. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, key) => (Array.isArray(v) ? v[Number(key)] : jsonObject(v)[String(key)]), value);
}
