export { enhance, send } from './enhance.js';
export { languageOf, messages, text, translations, type MessageName, type Messages } from './messages.js';
export {
  formBody,
  newIdempotencyKey,
  postSubmission,
  resetBotCheck,
  spentBotCheck,
  startAltcha,
  type JsonFields,
  type SubmitBody,
  type SubmitError,
  type SubmitOutcome,
} from './submit.js';
