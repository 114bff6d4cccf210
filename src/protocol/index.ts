export {
  ContentPart,
  FunctionCallItem,
  FunctionCallOutputItem,
  FunctionTool,
  MessageItem,
  MessageRole,
  ReasoningItem,
  Response,
  ResponseCreateParams,
  ResponseItem,
  ResponseUsage,
  ToolParam,
  TrainingFields,
  normalizeInput,
  sumUsage,
} from './responses.ts';
export { assistantMessages, assistantText, finalAnswerText, firstPartText, isMessage, messageTexts, outputText, responseOutputText } from './response-text.ts';
export { rowList } from './row-list.ts';
export { ChatCompletion, ChatCompletionChoice, ChatCompletionCreateParams, ChatMessage, ChatToolCall } from './chat-completions.ts';
export { AgentRef, RunRequest, SeedSessionRequest, VerifyRequest, VerifyResponse } from './server-bodies.ts';
export {
  RequestValidationError,
  type ValidationDetail,
  describeValidationError,
  parseReportingInput,
  validateBody,
  validationDetails,
} from './validation.ts';
export { isServerType, SERVER_TYPES, type ServerType } from './server-types.ts';
