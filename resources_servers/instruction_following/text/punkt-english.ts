/**
 * Parameters of NLTK's English Punkt model (`punkt_tab/english`, trained on Wall Street Journal text;
 * NLTK data, Apache-2.0): the abbreviations, collocations and sentence starters exactly as NLTK ships them, and
 * the orthographic context (20,366 word types with the cases they were seen in) from
 * `punkt-english-ortho-context.tab.gz`, NLTK's `ortho_context.tab` gzipped unchanged (its SHA-256,
 * 4bbcca25ed3d3f06c02402abf8419b9f033b8adc06e7b482eca4e45f81a5dc4c, is the one NLTK publishes).
 *
 * The orthographic context decides the word right after an abbreviation, an initial, an ordinal number or an
 * ellipsis: NLTK (>= 3.9, which upstream 0.7.0 runs) starts a sentence at "... Ships" because it has seen "ships"
 * lowercase mid-sentence and never capitalized there. Without the table such a word starts a sentence only when
 * it is a listed sentence starter, and `number_sentences` miscounted texts with ellipses (docs/parity.md).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const words = (list: string) => list.trim().split(/\s+/);

export const ABBREVIATIONS: ReadonlySet<string> = new Set(
  words(`
  ct m.j t a.c n.h ms p.a.m dr pa p.m u.k st
  dec u.s.a lt g.k adm p h.m ga tenn yr sen n.c
  j.j d.h s.g inc vs s.p.a a.t n feb sr jan s.a.y
  n.y col g.f c.o.m.b d ft va r.k e.f chg r.i a.g
  minn a.h k n.j m l.f f.j gen i.m.s s.a aug j.p
  okla m.d.c ltd oct s vt r.a j.c ariz w.w b.v ore
  h w.r e.h mrs cie corp w n.v a.d r.j ok e.m
  w.c ill nov u.s prof conn u.s.s.r mg f.g ph.d g calif
  messrs h.f wash tues sw bros u.n l wis mr sep d.c
  ave e.l co s.s reps c r.t h.c r wed a.s v
  fla jr r.h c.v m.b.a rep a.a e c.i.t l.a b.f j.b
  d.w j.k ala f w.va sept mich n.m j.r l.p s.c colo
  fri a.m g.d kan maj ky a.m.e n.d t.j cos nev
`),
);

/** (type ending in a period, next type) pairs that do not break: `type\tnext`. */
export const COLLOCATIONS: ReadonlySet<string> = new Set(
  words(`
  ##number##|international ##number##|rj ##number##|commodities ##number##|cooper b|stewart ##number##|genentech
  ##number##|wedgestone i|toussie ##number##|pepper j|fialka o|ludcke ##number##|insider
  ##number##|aes i|magnin ##number##|credit ##number##|corrections ##number##|financing ##number##|henley
  ##number##|business ##number##|pay-fone b|wigton b|edelman b|levine ##number##|leisure
  b|smith j|walter ##number##|pegasus ##number##|dividend j|aron ##number##|review
  ##number##|abreast ##number##|who ##number##|letters ##number##|colgate ##number##|cbot ##number##|notable
  ##number##|zimmer
`).map((pair) => pair.replace('|', '\t')),
);

export const SENTENCE_STARTERS: ReadonlySet<string> = new Set(
  words(`
  most he since so both these it nevertheless this indeed however instead
  under similarly some though while when in despite although nonetheless thus there
  if the nor separately moreover but they yet many according sales among
  meanwhile even i
`),
);

/** Word type -> orthographic context flags (NLTK's `ortho_context.tab`: `type<TAB>flags` lines). */
export const ORTHO_CONTEXT: ReadonlyMap<string, number> = new Map(
  gunzipSync(readFileSync(new URL('./punkt-english-ortho-context.tab.gz', import.meta.url)))
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [type, flags] = line.split('\t') as [string, string];
      return [type, Number(flags)];
    }),
);
