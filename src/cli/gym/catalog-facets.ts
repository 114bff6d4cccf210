/**
 * Upstream's catalog facets (`gym list environments --modality / --licensing / --status / --lifecycle`), read
 * from a workload's `manifest.yaml`: an entry matches when its value equals the one asked for. Entries whose
 * manifest does not say are left out with a warning, as upstream does; `status` is `no-manifest` without a
 * manifest, `experimental` for a manifest marked so, and none for a stable one.
 */
export const FACETS = ['modality', 'licensing', 'status', 'lifecycle'] as const;
type Facet = (typeof FACETS)[number];
export type FacetValues = Partial<Record<Facet, string>>;

export function filterByFacets<Entry extends FacetValues>(entries: Entry[], asked: FacetValues, warn: (text: string) => void = (text) => process.stderr.write(text)): Entry[] {
  let shown = entries;
  for (const facet of FACETS) {
    const expected = asked[facet];
    if (expected === undefined) continue;
    const missing = shown.filter((entry) => entry[facet] === undefined).length;
    if (missing > 0 && facet !== 'status') warn(`Warning: ${missing} catalog ${missing === 1 ? 'entry has' : 'entries have'} no ${facet} metadata and could not be matched.\n`);
    shown = shown.filter((entry) => entry[facet] === expected);
  }
  return shown;
}

/** The facets of a parsed manifest (undefined without one). */
export function manifestFacets(manifest: Record<string, unknown> | undefined): FacetValues {
  if (manifest === undefined) return { status: 'no-manifest' };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const facets: FacetValues = { modality: text(manifest.modality), licensing: text(manifest.licensing), lifecycle: text(manifest.lifecycle) };
  if (manifest.experimental === true) facets.status = 'experimental';
  return Object.fromEntries(Object.entries(facets).filter(([, value]) => value !== undefined)) as FacetValues;
}
