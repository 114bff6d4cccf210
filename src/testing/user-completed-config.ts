/**
 * Tests that load every config ngym ships complete each one as a user would before it can load: a mandatory
 * value (`???`, e.g. a judge's model server) gets a server the test names, and a model server the config names but
 * leaves to the user (a simulated user's model, upstream's `genrm_model` judge) is added as another
 * OpenAI-compatible endpoint. One rule for the strict-config and the environment-packaging tests.
 */

/**
 * The override that answers a config error `message` as a user would, or undefined when it is no such gap.
 * `mandatoryValue` names what a mandatory key gets (default: the policy model).
 */
export function userOverrideFor(message: string, mandatoryValue: (key: string) => string = () => 'policy_model'): string | undefined {
  const mandatory = /Missing mandatory value `([^`]+)`/.exec(message)?.[1];
  if (mandatory !== undefined) return `+${mandatory}=${mandatoryValue(mandatory)}`;
  const model = /Could not find \{type: responses_api_models, name: (\w+)\}/.exec(message)?.[1];
  if (model !== undefined) return `+${model}={responses_api_models: {openai_model: {entrypoint: app.ts, openai_base_url: 'http://127.0.0.1:1/v1', openai_api_key: k, openai_model: m}}}`;
  return undefined;
}
