/**
 * Judge prompt templates use Python's `str.format` with keyword fields, as upstream configs are written
 * for it: `{question}` is replaced, `{{` and `}}` are literal braces. Templates are checked when a server
 * starts, so a typo fails at launch rather than on the first verify.
 */
import { pythonStringRepr } from '../python-compat/python-json.ts';
import { NgymError } from '../errors.ts';

type Piece = { literal: string } | { field: string; conversion: 's' | 'r' | undefined };

export class PromptTemplateError extends NgymError {
  constructor(message: string) {
    super('NGYM_CONFIG_INVALID', message, { status: 500 });
  }
}

/** A parsed template; `format` fills its fields. */
export class PromptTemplate {
  private readonly pieces: Piece[];
  /** The field names the template uses, in order of first use. */
  readonly fields: string[];

  constructor(readonly template: string) {
    this.pieces = parse(template);
    this.fields = [...new Set(this.pieces.flatMap((piece) => ('field' in piece ? [piece.field] : [])))];
  }

  /** Throws when the template uses a field outside `allowed` (Python would raise KeyError on every call). */
  assertFields(allowed: readonly string[], where: string): this {
    const unknown = this.fields.filter((field) => !allowed.includes(field));
    if (unknown.length > 0) {
      throw new PromptTemplateError(
        `${where} uses the placeholder${unknown.length > 1 ? 's' : ''} ${unknown.map((field) => `{${field}}`).join(', ')}; the available ones are ${allowed.map((field) => `{${field}}`).join(', ')} (write {{ and }} for literal braces).`,
      );
    }
    return this;
  }

  format(values: Record<string, string>): string {
    return this.pieces
      .map((piece) => {
        if ('literal' in piece) return piece.literal;
        const value = values[piece.field];
        if (value === undefined) throw new PromptTemplateError(`The prompt template uses {${piece.field}}, which has no value.`);
        return piece.conversion === 'r' ? pythonStringRepr(value) : value;
      })
      .join('');
  }
}

function parse(template: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = '';
  for (let index = 0; index < template.length; index++) {
    const char = template[index];
    if (char === '}') {
      if (template[index + 1] !== '}') throw new PromptTemplateError(`Single '}' encountered in the prompt template at position ${index} (write }} for a literal brace).`);
      literal += '}';
      index++;
      continue;
    }
    if (char !== '{') {
      literal += char;
      continue;
    }
    if (template[index + 1] === '{') {
      literal += '{';
      index++;
      continue;
    }
    const close = template.indexOf('}', index);
    if (close === -1) throw new PromptTemplateError(`Single '{' encountered in the prompt template at position ${index} (write {{ for a literal brace).`);
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:!([sr]))?$/.exec(template.slice(index + 1, close));
    if (match === null) {
      throw new PromptTemplateError(
        `Unsupported replacement field {${template.slice(index + 1, close)}} in the prompt template at position ${index}: only {name}, {name!s} and {name!r} are supported.`,
      );
    }
    if (literal !== '') pieces.push({ literal });
    literal = '';
    pieces.push({ field: match[1] as string, conversion: match[2] as 's' | 'r' | undefined });
    index = close;
  }
  if (literal !== '') pieces.push({ literal });
  return pieces;
}
