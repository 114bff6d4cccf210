/**
 * The dataset metrics of upstream's `ng_prepare_data` (spec gym-core 6.2-6.3), computed the same way so
 * committed `*_metrics.json` files compare equal: per valid row, the number of tools, of user turns, the
 * temperature and the word count of Python's `json.dumps(responses_create_params)`; over every other
 * top-level field, number statistics (booleans as 0/1, lists flattened one level) or string counts.
 */
import { PythonFloat } from '../python-compat/python-json.ts';
import { type AggregatedAvgMinMax, AvgMinMax } from '../metrics/avg-min-max.ts';

export interface StringCounts {
  unique_count: number;
  total_count: number;
}

export type ExtraMetric = AggregatedAvgMinMax | StringCounts;

/** The serialized metrics, in upstream's key order. */
export type AggregatedDatasetMetrics = {
  'Number of examples': number;
  'Number of tools': AggregatedAvgMinMax;
  'Json-dumped number of words (proxy for token count)': AggregatedAvgMinMax;
  'Number of turns': AggregatedAvgMinMax;
  Temperature: AggregatedAvgMinMax;
} & Record<string, unknown>;

const CORE_KEYS = new Set([
  'Number of examples',
  'Number of tools',
  'Json-dumped number of words (proxy for token count)',
  'Number of turns',
  'Temperature',
]);

/**
 * `len(json.dumps(value).split())` without building the text: with Python's `", "` and `": "`
 * separators and every control and non-ASCII character escaped, the only whitespace in the dump is the
 * separators' spaces and the literal spaces inside strings.
 */
export function jsonDumpedWordCount(value: unknown): number {
  let words = 0;
  let inWord = false;
  const token = () => {
    if (!inWord) {
      words++;
      inWord = true;
    }
  };
  const space = () => {
    inWord = false;
  };
  const string = (text: string) => {
    token(); // the opening quote
    for (let start = 0; ; ) {
      const next = text.indexOf(' ', start);
      if (next === -1) break;
      space();
      start = next + 1;
      // Characters after the space (or the closing quote) start a new word.
      if (start < text.length && text[start] !== ' ') token();
    }
    token(); // the closing quote
  };
  const walk = (item: unknown): void => {
    if (typeof item === 'string') string(item);
    else if (Array.isArray(item)) {
      token();
      item.forEach((entry, index) => {
        if (index > 0) space();
        walk(entry === undefined ? null : entry);
      });
      token();
    } else if (item !== null && typeof item === 'object' && !(item instanceof PythonFloat)) {
      token();
      let first = true;
      for (const [key, entry] of Object.entries(item)) {
        if (entry === undefined) continue;
        if (!first) space();
        first = false;
        string(key);
        space();
        walk(entry);
      }
      token();
    } else token();
  };
  walk(value);
  return words;
}

/** Accumulates the metrics of one dataset (or, merged, of one dataset type). */
export class DatasetMetrics {
  examples = 0;
  tools = new AvgMinMax();
  words = new AvgMinMax();
  turns = new AvgMinMax();
  temperature = new AvgMinMax();
  /** Number statistics or string counts of the other top-level fields, in first-seen order. */
  private readonly others = new Map<string, AvgMinMax | Map<string, number>>();
  /** Fields whose values mixed numbers and strings (upstream crashes on these); the odd ones are skipped. */
  readonly mixedKindFields = new Set<string>();

  /** Observes one row that passed validation. */
  observe(row: Record<string, unknown>): void {
    const params = row.responses_create_params as Record<string, unknown>;
    this.examples++;
    if (Array.isArray(params.tools)) this.tools.observe(params.tools.length);
    const input = typeof params.input === 'string' ? [{ role: 'user', content: params.input }] : params.input;
    const userTurns = Array.isArray(input) ? input.filter((item) => (item as { role?: unknown } | null)?.role === 'user').length : 0;
    if (userTurns > 0) this.turns.observe(userTurns);
    if (typeof params.temperature === 'number') this.temperature.observe(params.temperature);
    this.words.observe(jsonDumpedWordCount(params));
    this.observeOthers(row);
  }

  private observeOthers(row: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(row)) {
      if (key === 'responses_create_params' || key === 'response') continue;
      for (const item of Array.isArray(value) ? value : [value]) {
        const number = typeof item === 'boolean' ? Number(item) : item;
        if (typeof number === 'number') {
          const existing = this.others.get(key) ?? new AvgMinMax();
          if (existing instanceof AvgMinMax) {
            existing.observe(number);
            this.others.set(key, existing);
          } else this.mixedKindFields.add(key);
        } else if (typeof number === 'string') {
          const existing = this.others.get(key) ?? new Map<string, number>();
          if (existing instanceof Map) {
            existing.set(number, (existing.get(number) ?? 0) + 1);
            this.others.set(key, existing);
          } else this.mixedKindFields.add(key);
        }
      }
    }
  }

  /** The other fields' aggregated values (upstream attaches these to the dataset's metrics object). */
  aggregatedOthers(): Map<string, ExtraMetric> {
    const out = new Map<string, ExtraMetric>();
    for (const [key, value] of this.others) {
      out.set(
        key,
        value instanceof AvgMinMax ? value.aggregate() : { unique_count: value.size, total_count: [...value.values()].reduce((sum, count) => sum + count, 0) },
      );
    }
    return out;
  }

  /** The serialized metrics of this dataset. */
  aggregate(extras: Map<string, ExtraMetric> = this.aggregatedOthers()): AggregatedDatasetMetrics {
    const result: AggregatedDatasetMetrics = {
      'Number of examples': this.examples,
      'Number of tools': this.tools.aggregate(),
      'Json-dumped number of words (proxy for token count)': this.words.aggregate(),
      'Number of turns': this.turns.aggregate(),
      Temperature: this.temperature.aggregate(),
    };
    for (const [key, value] of extras) if (!CORE_KEYS.has(key)) result[key] = value;
    return result;
  }
}

/**
 * The metrics of one dataset type: core statistics merged over its datasets; for the other fields, each
 * dataset's aggregated values replace earlier ones key by key (upstream's behaviour, spec gym-core 6.2).
 */
export class DatasetTypeMetrics {
  private readonly core = new DatasetMetrics();
  private readonly extras = new Map<string, ExtraMetric>();

  add(dataset: DatasetMetrics): void {
    this.core.examples += dataset.examples;
    this.core.tools.add(dataset.tools);
    this.core.words.add(dataset.words);
    this.core.turns.add(dataset.turns);
    this.core.temperature.add(dataset.temperature);
    for (const [key, value] of dataset.aggregatedOthers()) this.extras.set(key, value);
  }

  aggregate(): AggregatedDatasetMetrics {
    return this.core.aggregate(this.extras);
  }
}
