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
  assistantText,
  responseOutputText,
  normalizeInput,
  sumUsage,
} from './responses.ts';
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
