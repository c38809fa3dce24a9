/**
 * A local stand-in for Cloudflare's siteverify: Turnstile speaks the protocol of hCaptcha's and
 * reCAPTCHA's siteverify, so the one stand-in serves all three (a Turnstile test sets no scores).
 */
export { startCaptchaStub as startTurnstileStub } from './captcha-stub.js';
