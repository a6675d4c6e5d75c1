/** A parsed JSON body as an object, or an empty one when it is not an object. */
export function jsonObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}

/** The `field` of every details item of an error body (empty when there are none). */
export function detailFields(body: Record<string, unknown>): string[] {
  const details = body['details'];
  if (!Array.isArray(details)) return [];
  return details.map((d: unknown) => (d !== null && typeof d === 'object' && 'field' in d ? String(d.field) : ''));
}
