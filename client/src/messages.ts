/**
 * The texts shown to people filling in a form. English by default; a page may replace any of
 * them (`Formgate.messages.offline = '…'` with the script, or by importing `messages`).
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
};

export type Messages = typeof messages;
