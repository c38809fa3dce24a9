import { useCallback, useRef, useState } from 'react';
import { languageOf } from './messages.js';
import { formBody, newIdempotencyKey, postSubmission, resetBotCheck, spentBotCheck, type JsonFields, type SubmitError, type SubmitOutcome } from './submit.js';

export interface UseFormgateOptions {
  /** Where Formgate answers, e.g. `https://forms.example.com` (no trailing path). */
  baseUrl: string;
  /** The language of the hook's own texts (en, de, fr, es, pt); default: the form's `lang`, else the browser's. */
  language?: string;
}

export type FormgateState =
  | { status: 'idle' }
  | { status: 'submitting' }
  | { status: 'succeeded'; submissionId: string }
  | { status: 'failed'; error: SubmitError };

/** A submit event of a <form>, the form itself, its FormData, or a flat object sent as JSON. */
export type FormgateInput = { preventDefault(): void; currentTarget: EventTarget | null } | HTMLFormElement | FormData | JsonFields;

export interface UseFormgate {
  submit(input: FormgateInput): Promise<SubmitOutcome>;
  state: FormgateState;
  /** Field name → message from the last failed try; empty otherwise. */
  fieldErrors: Record<string, string>;
  /** Back to idle; the next submit is a new submission (a new Idempotency-Key). */
  reset(): void;
}

const NO_FIELD_ERRORS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export function useFormgate(formId: string, { baseUrl, language }: UseFormgateOptions): UseFormgate {
  const [state, setState] = useState<FormgateState>({ status: 'idle' });
  // Kept until a success, like the script: a retry after a lost answer stores nothing twice.
  const key = useRef<string | undefined>(undefined);
  const inFlight = useRef<Promise<SubmitOutcome> | undefined>(undefined);

  const submit = useCallback(
    (input: FormgateInput): Promise<SubmitOutcome> => {
      let form: HTMLFormElement | undefined;
      if (input instanceof HTMLFormElement) form = input;
      else if (!(input instanceof FormData) && typeof input.preventDefault === 'function' && 'currentTarget' in input) {
        (input as { preventDefault(): void }).preventDefault();
        const target = (input as { currentTarget: EventTarget | null }).currentTarget;
        if (target instanceof HTMLFormElement) form = target;
      }
      // A second call while one is in flight (a double click) shares the first one's outcome.
      if (inFlight.current) return inFlight.current;
      const body = form
        ? formBody(new FormData(form), (form.getAttribute('enctype') || '').toLowerCase() === 'multipart/form-data')
        : input instanceof FormData
          ? formBody(input)
          : (input as JsonFields);
      const url = `${baseUrl.replace(/\/+$/, '')}/v1/submit/${encodeURIComponent(formId)}`;
      const attempt = key.current || (key.current = newIdempotencyKey());
      setState({ status: 'submitting' });
      const sent = postSubmission(url, body, attempt, undefined, language || languageOf(form)).then((outcome) => {
        inFlight.current = undefined;
        if (form) resetBotCheck(form, outcome.ok || spentBotCheck(outcome));
        if (outcome.ok) {
          key.current = undefined;
          setState({ status: 'succeeded', submissionId: outcome.submissionId });
        } else {
          setState({ status: 'failed', error: outcome.error });
        }
        return outcome;
      });
      inFlight.current = sent;
      return sent;
    },
    [formId, baseUrl, language],
  );

  const reset = useCallback(() => {
    key.current = undefined;
    setState({ status: 'idle' });
  }, []);

  return { submit, state, fieldErrors: state.status === 'failed' ? state.error.fieldErrors : NO_FIELD_ERRORS, reset };
}
