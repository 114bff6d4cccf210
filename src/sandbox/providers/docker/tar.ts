/**
 * The one-file tar archives the Docker Engine API moves files in (`PUT`/`GET /containers/{id}/archive`): a POSIX
 * ustar archive holding one regular file to upload, and the first regular file of an archive the engine sends
 * back (with the GNU and PAX long-name records the engine may put before it).
 */
const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** A ustar archive of one regular file named `name` (no directories; at most 100 bytes of name, which callers ensure). */
export function tarOneFile(name: string, content: Uint8Array, mode = 0o644, modifiedSeconds = Math.floor(Date.now() / 1000)): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length === 0 || nameBytes.length > 100 || name.includes('/')) throw new RangeError(`A tar member name must be 1-100 bytes without '/': ${JSON.stringify(name)}`);
  const header = Buffer.alloc(BLOCK);
  nameBytes.copy(header, 0);
  header.write(octal(mode & 0o7777, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(content.length, 12), 124, 'ascii');
  header.write(octal(modifiedSeconds, 12), 136, 'ascii');
  header.write('        ', 148, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  let checksum = 0;
  for (const byte of header) checksum += byte;
  header.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  const padding = (BLOCK - (content.length % BLOCK)) % BLOCK;
  return Buffer.concat([header, content, Buffer.alloc(padding), Buffer.alloc(BLOCK * 2)]);
}

function parseOctal(field: Buffer): number {
  // GNU base-256 sizes (files of 8 GiB and more) set the high bit of the first byte.
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let value = 0;
    for (let index = 1; index < field.length; index++) value = value * 256 + (field[index] ?? 0);
    return value;
  }
  const text = field.toString('ascii').replace(/\0.*$/s, '').trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

export interface TarEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  content: Buffer;
}

/** The first entry of an archive that is not a metadata record; undefined for an empty archive. */
export function firstTarEntry(archive: Buffer): TarEntry | undefined {
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return undefined;
    const size = parseOctal(header.subarray(124, 136));
    const typeFlag = String.fromCharCode(header[156] ?? 0);
    const body = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (typeFlag === 'L') {
      longName = body.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (typeFlag === 'x' || typeFlag === 'g') {
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
      if (path !== undefined) longName = path;
      continue;
    }
    const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
    const shortName = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const name = longName ?? (prefix === '' ? shortName : `${prefix}/${shortName}`);
    const type = typeFlag === '0' || typeFlag === '\0' || typeFlag === '7' ? 'file' : typeFlag === '5' ? 'directory' : typeFlag === '2' ? 'symlink' : 'other';
    return { name, type, content: Buffer.from(body) };
  }
  return undefined;
}
