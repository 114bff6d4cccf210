/**
 * ns_tools does not score answers itself: verify forwards the whole row to a verifier server (math_with_judge by
 * default) and takes its reward. Where upstream turns every verifier failure into a 500 ("Verifier did not
 * return 'reward' field", the verifier's 422 included), here a row the verifier refuses is refused with the
 * verifier's own 422 (which names the missing field), and any other failure stays an error, never a reward.
 */
import { NgymError, raiseForStatus, RequestValidationError, type ServerClient, type ValidationDetail } from 'ngym';
import { isPythonDict } from 'ngym/python-compat';

export type DelegatedResponse = Record<string, unknown> & { reward: number };

function validationDetailsOf(text: string): ValidationDetail[] | undefined {
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    return Array.isArray(detail) && detail.length > 0 ? (detail as ValidationDetail[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The verifier's answer to `body`, which must carry a numeric `reward`. */
export async function delegateVerify(client: ServerClient, verifier: string, body: Record<string, unknown>): Promise<DelegatedResponse> {
  const response = await client.post(verifier, '/verify', body);
  const details = response.status === 422 ? validationDetailsOf(response.text) : undefined;
  if (details !== undefined) throw new RequestValidationError(details);
  raiseForStatus(response);
  let result: unknown;
  try {
    result = JSON.parse(response.text);
  } catch {
    result = undefined;
  }
  if (!isPythonDict(result) || !('reward' in result)) {
    throw new NgymError('NGYM_UPSTREAM_BODY', `Verifier did not return 'reward' field. Response: ${response.text.slice(0, 500)}`, { status: 502 });
  }
  if (typeof result.reward !== 'number') {
    throw new NgymError('NGYM_UPSTREAM_BODY', `Verifier '${verifier}' returned a reward that is not a number: ${JSON.stringify(result.reward)}`, { status: 502 });
  }
  return result as DelegatedResponse;
}
