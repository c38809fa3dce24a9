// The script Formgate serves at /v1/client.js: enhances every <form data-formgate> of the page.
import { enhance } from './enhance.js';
import { messages } from './messages.js';

(window as unknown as { Formgate: unknown }).Formgate = { messages };
enhance(document);
