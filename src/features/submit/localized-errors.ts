import { AppError, type FieldErrors } from '../../platform/errors.js';
import { fillParams, messages, type Language, type MessageKey } from '../../platform/i18n/i18n.js';

const isKey = (language: Language, key: string | undefined): key is MessageKey =>
  key !== undefined && Object.hasOwn(messages(language), key);

/**
 * A submit refusal in the visitor's language: the language Formgate chose for the submission
 * (the form's, or for `auto` the best match of Accept-Language), so the JSON a script shows, the
 * hosted pages and the widget all speak one. English keeps the messages as written; another
 * language takes the error's own catalogue keys, else its code's text, and each field's key, else
 * a general "this value could not be accepted" (the field's name says which).
 */
export function localizedError(error: AppError, language: Language): AppError {
  if (language === 'en') return error;
  const m = messages(language);
  const keys = error.textKeys;
  const codeKey = error.code === 'validation_failed' ? 'submit.invalid' : `error.${error.code}`;
  const messageKey = isKey(language, keys?.message) ? keys.message : isKey(language, codeKey) ? codeKey : 'error.default';
  const text = (key: MessageKey) => fillParams(m[key], keys?.params);
  let fieldErrors: FieldErrors | undefined;
  if (error.fieldErrors) {
    fieldErrors = Object.create(null) as FieldErrors;
    for (const name of Object.keys(error.fieldErrors)) {
      const fields = keys?.fields;
      const key = fields ? (Object.hasOwn(fields, name) ? fields[name] : fields['*']) : undefined;
      // defineProperty: a field named __proto__ is data like any other.
      Object.defineProperty(fieldErrors, name, { value: text(isKey(language, key) ? key : 'field.invalid'), enumerable: true });
    }
  }
  return new AppError(error.code, text(messageKey), {
    headers: error.headers,
    ...(fieldErrors ? { fieldErrors } : {}),
    ...(keys ? { textKeys: keys } : {}),
  });
}
