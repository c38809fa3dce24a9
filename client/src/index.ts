export { enhance, send } from './enhance.js';
export { messages, type Messages } from './messages.js';
export {
  formBody,
  newIdempotencyKey,
  postSubmission,
  resetBotCheck,
  type JsonFields,
  type SubmitBody,
  type SubmitError,
  type SubmitOutcome,
} from './submit.js';
