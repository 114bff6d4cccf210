/**
 * The limits both ends of ngym's HTTP/2 (h2c) links use. Concurrency is the caller's to bound (the
 * collector's `num_samples_in_parallel`), so neither end may refuse streams first.
 *
 * Flow-control windows are asymmetric on purpose. Node stops reading an HTTP/2 session's socket while one of
 * its own writes to it is pending (its defence against peers that never read). Two Node peers that both have
 * more to send than the kernel's socket buffers hold therefore wait on each other for ever: 4 concurrent 2 MB
 * echoes, or 3,000 of 3 KB, stalled one connection when both sides advertised 16 MB windows. The server side
 * (requests) keeps HTTP/2's default 64 KiB windows, which the kernel's receive buffer always holds, so a
 * client's writes always complete and it keeps reading the responses; responses get large windows.
 */
export const HTTP2_LIMITS = {
  /** Node's per-session memory limit, in megabytes (10 by default: streams past ~12,000 were refused). */
  maxSessionMemoryMb: 100_000,
  maxConcurrentStreams: 1_000_000,
  /** Per-stream receive window of clients, for responses; the session-wide one is four times this. */
  responseWindowBytes: 16 * 1024 * 1024,
  /**
   * Streams in flight on one client connection before another is opened: bounds the request headers (not
   * flow-controlled) a connection can have queued, and spreads load over sockets.
   */
  streamsPerConnection: 256,
} as const;
