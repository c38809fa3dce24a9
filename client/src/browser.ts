// The script Formgate serves at /v1/client.js: enhances every <form data-formgate> of the page.
import { enhance, setScriptUrl } from './enhance.js';
import { messages } from './messages.js';

(window as unknown as { Formgate: unknown }).Formgate = { messages };
const current = document.currentScript as HTMLScriptElement | null;
setScriptUrl(current && current.src ? current.src : undefined);
enhance(document);
