/** The `field` of every details item of an error body (empty when there are none). */
export function detailFields(body: Record<string, unknown>): string[] {
  const details = body['details'];
  if (!Array.isArray(details)) return [];
  return details.map((d: unknown) => (d !== null && typeof d === 'object' && 'field' in d ? String(d.field) : ''));
}
