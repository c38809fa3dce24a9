/**
 * The texts shown to people filling in a form, in English. A page may replace any of them
 * (`Formgate.messages.offline = '…'` with the script, or by importing `messages`): a replaced
 * text is shown whatever the form's language.
 */
export const messages = {
  sending: 'Sending…',
  success: 'Thank you! Your message has been sent.',
  /** {seconds} is replaced by the server's Retry-After. */
  rateLimited: 'Too many attempts. Please wait {seconds} seconds, then send the form again.',
  rateLimitedSoon: 'Too many attempts. Please wait a moment, then send the form again.',
  tooLarge: 'The form is too large to send. Please shorten your message or attach smaller files.',
  network: 'The form could not be sent: the server did not answer. Please check your connection and try again.',
  offline: 'You are offline. Please reconnect to the internet, then send the form again.',
  server: 'Something went wrong on our side. Please try again in a moment.',
  invalid: 'Some fields need another look.',
  sealFailed: 'The form could not be encrypted, so nothing was sent. Please reload the page and try again.',
};

export type Messages = typeof messages;
export type MessageName = keyof Messages;

const english: Messages = { ...messages };

/** The same texts in the other languages of Formgate's pages (docs/client.md). */
export const translations: Record<string, Messages> = {
  de: {
    sending: 'Wird gesendet…',
    success: 'Vielen Dank! Ihre Nachricht wurde gesendet.',
    rateLimited: 'Zu viele Versuche. Bitte warten Sie {seconds} Sekunden und senden Sie das Formular dann erneut.',
    rateLimitedSoon: 'Zu viele Versuche. Bitte warten Sie einen Moment und senden Sie das Formular dann erneut.',
    tooLarge: 'Das Formular ist zu groß zum Senden. Bitte kürzen Sie Ihre Nachricht oder hängen Sie kleinere Dateien an.',
    network: 'Das Formular konnte nicht gesendet werden: Der Server hat nicht geantwortet. Bitte prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
    offline: 'Sie sind offline. Bitte verbinden Sie sich mit dem Internet und senden Sie das Formular dann erneut.',
    server: 'Bei uns ist etwas schiefgegangen. Bitte versuchen Sie es gleich noch einmal.',
    invalid: 'Einige Felder müssen noch einmal geprüft werden.',
    sealFailed: 'Das Formular konnte nicht verschlüsselt werden, daher wurde nichts gesendet. Bitte laden Sie die Seite neu und versuchen Sie es erneut.',
  },
  fr: {
    sending: 'Envoi…',
    success: 'Merci ! Votre message a été envoyé.',
    rateLimited: 'Trop de tentatives. Veuillez attendre {seconds} secondes, puis renvoyer le formulaire.',
    rateLimitedSoon: 'Trop de tentatives. Veuillez patienter un moment, puis renvoyer le formulaire.',
    tooLarge: 'Le formulaire est trop volumineux. Raccourcissez votre message ou joignez des fichiers plus petits.',
    network: "Le formulaire n'a pas pu être envoyé : le serveur n'a pas répondu. Vérifiez votre connexion et réessayez.",
    offline: 'Vous êtes hors ligne. Reconnectez-vous à Internet, puis renvoyez le formulaire.',
    server: 'Un problème est survenu de notre côté. Veuillez réessayer dans un instant.',
    invalid: 'Certains champs sont à revoir.',
    sealFailed: "Le formulaire n'a pas pu être chiffré, rien n'a donc été envoyé. Rechargez la page et réessayez.",
  },
  es: {
    sending: 'Enviando…',
    success: '¡Gracias! Su mensaje ha sido enviado.',
    rateLimited: 'Demasiados intentos. Espere {seconds} segundos y vuelva a enviar el formulario.',
    rateLimitedSoon: 'Demasiados intentos. Espere un momento y vuelva a enviar el formulario.',
    tooLarge: 'El formulario es demasiado grande. Acorte su mensaje o adjunte archivos más pequeños.',
    network: 'No se pudo enviar el formulario: el servidor no respondió. Compruebe su conexión e inténtelo de nuevo.',
    offline: 'No tiene conexión. Vuelva a conectarse a Internet y envíe el formulario de nuevo.',
    server: 'Algo salió mal por nuestra parte. Inténtelo de nuevo en un momento.',
    invalid: 'Algunos campos necesitan revisión.',
    sealFailed: 'No se pudo cifrar el formulario, así que no se envió nada. Vuelva a cargar la página e inténtelo de nuevo.',
  },
  pt: {
    sending: 'A enviar…',
    success: 'Obrigado! A sua mensagem foi enviada.',
    rateLimited: 'Demasiadas tentativas. Aguarde {seconds} segundos e envie o formulário novamente.',
    rateLimitedSoon: 'Demasiadas tentativas. Aguarde um momento e envie o formulário novamente.',
    tooLarge: 'O formulário é demasiado grande. Encurte a mensagem ou anexe ficheiros mais pequenos.',
    network: 'Não foi possível enviar o formulário: o servidor não respondeu. Verifique a ligação e tente novamente.',
    offline: 'Está sem ligação. Volte a ligar-se à Internet e envie o formulário novamente.',
    server: 'Algo correu mal do nosso lado. Tente novamente dentro de momentos.',
    invalid: 'Alguns campos precisam de ser revistos.',
    sealFailed: 'Não foi possível cifrar o formulário, por isso nada foi enviado. Recarregue a página e tente novamente.',
  },
};

const primary = (tag: string) => tag.toLowerCase().split('-')[0]!;

/**
 * The language of a form's texts: its own `lang` (the dashboard's snippet writes the form's fixed
 * language there), else the browser's preferred languages, the first Formgate speaks (the server
 * chooses a form set to `auto` from the same list, sent as Accept-Language), else English.
 */
export function languageOf(form?: Element | null): string {
  const own = form && form.getAttribute('lang');
  const wanted = own ? [own] : typeof navigator !== 'undefined' ? navigator.languages || [navigator.language] : [];
  for (const tag of wanted) {
    const code = primary(tag || '');
    if (code === 'en' || translations[code]) return code;
  }
  return 'en';
}

/** A text in the language: the page's replacement when it made one, else the translation. */
export function text(name: MessageName, language = 'en'): string {
  if (messages[name] !== english[name]) return messages[name];
  const translated = translations[language];
  return translated ? translated[name] : messages[name];
}
