/**
 * The framing between the host and the supervisor inside a box (src/sandbox/launcher.py): one type byte,
 * a 4-byte big-endian payload length, the payload.
 */
const HEADER_BYTES = 5;

export function encodeFrame(kind: string, payload: Uint8Array | string = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.write(kind, 0, 1, 'latin1');
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, HEADER_BYTES);
  return frame;
}

export interface Frame {
  kind: string;
  payload: Buffer;
}

/** Turns a byte stream back into frames; `push` returns the frames the new bytes completed. */
export class FrameDecoder {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Frame[] = [];
    let offset = 0;
    while (this.buffered.length - offset >= HEADER_BYTES) {
      const length = this.buffered.readUInt32BE(offset + 1);
      if (this.buffered.length - offset < HEADER_BYTES + length) break;
      frames.push({
        kind: String.fromCharCode(this.buffered[offset] as number),
        payload: this.buffered.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length),
      });
      offset += HEADER_BYTES + length;
    }
    this.buffered = offset === this.buffered.length ? Buffer.alloc(0) : this.buffered.subarray(offset);
    return frames;
  }
}
