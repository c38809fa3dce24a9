// A small React app using useFormgate, bundled and served by e2e/browser/react-hook.test.ts.
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { useFormgate } from '../src/react.js';

interface AppConfig {
  formId: string;
  baseUrl: string;
  /** One more text field, e.g. a name the server refuses. */
  extraField?: string;
}

function ContactForm({ formId, baseUrl, extraField }: AppConfig) {
  const { submit, state, fieldErrors, reset } = useFormgate(formId, { baseUrl });
  if (state.status === 'succeeded') {
    return h('div', null, h('p', { role: 'status' }, `Thanks! ${state.submissionId}`), h('button', { type: 'button', onClick: reset }, 'Send another'));
  }
  return h(
    'form',
    { onSubmit: submit, 'aria-busy': state.status === 'submitting' },
    state.status === 'failed' ? h('p', { role: 'alert' }, state.error.message) : null,
    h('label', null, 'Name ', h('input', { name: 'name', defaultValue: 'Grace' })),
    extraField ? h('label', null, 'Extra ', h('input', { name: extraField, defaultValue: 'x' })) : null,
    h(
      'ul',
      { className: 'field-errors' },
      Object.keys(fieldErrors).map((name) => h('li', { key: name }, `${name}: ${fieldErrors[name]}`)),
    ),
    h('button', { type: 'submit', disabled: state.status === 'submitting' }, 'Send'),
    h('button', { type: 'button', onClick: () => void submit({ name: 'Json', count: 2, tags: ['a', 'b'] }) }, 'Send as JSON'),
  );
}

const config = (window as unknown as { FORMGATE: AppConfig }).FORMGATE;
createRoot(document.getElementById('root')!).render(h(ContactForm, config));
