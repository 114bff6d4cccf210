/**
 * The replica listing's wire shapes: what `GET /server_replicas` answers (clients route by it) and what another
 * `ngym run` sends to `POST /server_replicas/register` and `/remove` on the head server.
 */
import * as z from 'zod';
import { SERVER_TYPES } from '../protocol/server-types.ts';

/** One replica as `GET /server_replicas` lists it (the wire shape clients read). */
export interface ReplicaInfo {
  name: string;
  server_type: string;
  url: string;
  /** Where the replica also speaks cleartext HTTP/2 (ngym servers); null for others. */
  h2c_url: string | null;
  pid: number | null;
  /** `local`: launched by this head's `ngym run`; `registered`: by another `ngym run`. */
  origin: 'local' | 'registered';
  /** False once its process exited (local) or its registration lapsed. */
  up: boolean;
}

export const ReplicaRegistration = z.strictObject({
  name: z.string().min(1),
  server_type: z.enum(SERVER_TYPES),
  url: z.url({ protocol: /^https?$/ }),
  h2c_url: z.url({ protocol: /^http$/ }).nullable().default(null),
  pid: z.number().int().nullable().default(null),
});
export const ReplicaRemoval = z.strictObject({ urls: z.array(z.string()) });

