/**
 * Generated from Formgate's /v1/openapi.json by `npm run generate:api-client`; do not edit.
 * npm test fails when this file no longer matches the document.
 */

export interface paths {
    "/v1/submit/{formId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a form (public; any origin)
         * @description Accepts application/x-www-form-urlencoded, multipart/form-data (file parts ignored, unless the form keeps files: then each is stored and its field holds {"file": {id, name, size, type}}; over a file limit or the account's quota 413 payload_too_large, a type the form does not take validation_failed naming the field) or a flat application/json object. Answers JSON (200) or a 303 redirect; see the specification for the response modes. A form with allowedOrigins refuses a request whose Origin host (or, without Origin, Referer host) is not listed: 403 origin_not_allowed, nothing stored. Spam (honeypot, the form's blocked terms, blocked emails and link limit, then the bot check) is stored and answered with filtered: "spam". Any other method on a submit URL answers 405 method_not_allowed with Allow: POST, OPTIONS.
         */
        post: operations["submitForm"];
        delete?: never;
        /** CORS preflight */
        options: operations["submitFormPreflight"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/challenge/{formId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An ALTCHA proof-of-work challenge for the form's widget (public; any origin)
         * @description Signed by this Formgate, valid for 10 minutes, for this form only; its work follows the form's altchaComplexity. Rate-limited per client IP and form like submit. The X-Altcha-Config header gives the widget its texts in the form's language and the URL of its next challenge, whose `since` keeps the visit's start: the form's minimum fill time counts from the first challenge of a page, not from one fetched again after an expiry.
         */
        get: operations["getAltchaChallenge"];
        put?: never;
        post?: never;
        delete?: never;
        /** CORS preflight of the challenge URL */
        options: operations["getAltchaChallengePreflight"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/files/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download a file through a signed link (valid 7 days; a tampered or expired link is 404; with CLAMD_URL set, 409 file_not_scanned until it is scanned clean) */
        get: operations["getFileByLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account that owns the API key */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/forms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's forms, newest first */
        get: operations["listForms"];
        put?: never;
        /** Create a form (keys of scope manage) */
        post: operations["createForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/forms/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A form with every setting and its notification recipients */
        get: operations["getForm"];
        put?: never;
        post?: never;
        /** Delete a form with its submissions, files, integrations and hooks (keys of scope manage) */
        delete: operations["deleteForm"];
        options?: never;
        head?: never;
        /** Change a form: its name, state, key, any setting, its recipients (keys of scope manage) */
        patch: operations["updateForm"];
        trace?: never;
    };
    "/v1/api/forms/{id}/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A form's integrations, oldest first */
        get: operations["listIntegrations"];
        put?: never;
        /** Add an integration to a form (keys of scope manage); its secrets are never shown again */
        post: operations["createIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/forms/{id}/integrations/{integrationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One integration of a form */
        get: operations["getIntegration"];
        put?: never;
        post?: never;
        /** Remove an integration (keys of scope manage) */
        delete: operations["deleteIntegration"];
        options?: never;
        head?: never;
        /** Change an integration: its name, settings, secrets, on or off (keys of scope manage) */
        patch: operations["updateIntegration"];
        trace?: never;
    };
    "/v1/api/forms/{id}/submissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A form's submissions, newest first, with cursor paging */
        get: operations["listFormSubmissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/submissions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One submission with its payload */
        get: operations["getSubmission"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/hooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's subscriptions, newest first */
        get: operations["listHooks"];
        put?: never;
        /** Subscribe a public HTTPS URL to new submissions of a form (Pro or higher) */
        post: operations["createHook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/hooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a subscription */
        delete: operations["deleteHook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/hooks/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send again every delivery of a hook in a time range whose last attempt failed (after an outage)
         * @description Queues one new attempt, with the same webhook-id, for each delivery of the hook whose submission arrived in [since, until) and whose last attempt failed; at most 10,000 per call (validation_failed beyond: narrow the range).
         */
        post: operations["redeliverHook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/files/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an uploaded file (with CLAMD_URL set, 409 file_not_scanned until it is scanned clean) */
        get: operations["getFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ErrorBody: {
            /** @enum {string} */
            error: "validation_failed" | "unauthorized" | "access_denied" | "form_inactive" | "plan_required" | "not_found" | "method_not_allowed" | "payload_too_large" | "origin_not_allowed" | "request_timeout" | "rate_limited" | "internal_error" | "file_not_scanned" | "precondition_failed";
            message: string;
            fieldErrors?: {
                [key: string]: string;
            };
            /** @description On 500 answers: the X-Request-Id to quote when reporting the problem */
            requestId?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    submitForm: {
        parameters: {
            query?: never;
            header?: {
                /** @description Scoped to the form: a repeat within 24 hours returns the first result (cached: true) and stores nothing */
                "idempotency-key"?: string;
            };
            path: {
                /** @description The form ID */
                formId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Honeypot: leave empty (also _honey, botfield, url, website) */
                    _gotcha?: string;
                    /** @description The bot-check token, when the form requires one */
                    "cf-turnstile-response"?: string;
                    /** @description The form's access key, when it has one */
                    access_key?: string;
                    /** @description Where to go after success (absolute URL on an allowed host; redirect mode) */
                    redirect?: string;
                } & {
                    [key: string]: string | number | boolean | null | (string | number | boolean | null)[];
                };
                "application/x-www-form-urlencoded": {
                    /** @description Honeypot: leave empty (also _honey, botfield, url, website) */
                    _gotcha?: string;
                    /** @description The bot-check token, when the form requires one */
                    "cf-turnstile-response"?: string;
                    /** @description The form's access key, when it has one */
                    access_key?: string;
                    /** @description Where to go after success (absolute URL on an allowed host; redirect mode) */
                    redirect?: string;
                } & {
                    [key: string]: string | string[];
                };
                "multipart/form-data": {
                    /** @description Honeypot: leave empty (also _honey, botfield, url, website) */
                    _gotcha?: string;
                    /** @description The bot-check token, when the form requires one */
                    "cf-turnstile-response"?: string;
                    /** @description The form's access key, when it has one */
                    access_key?: string;
                    /** @description Where to go after success (absolute URL on an allowed host; redirect mode) */
                    redirect?: string;
                } & {
                    [key: string]: string | string[];
                };
            };
        };
        responses: {
            /** @description JSON mode: the submission was stored (or filtered as spam, or replayed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        ok: true;
                        submissionId: string;
                        /**
                         * @description Present when the submission was filtered as spam
                         * @enum {string}
                         */
                        filtered?: "spam";
                        /**
                         * @description Present on an Idempotency-Key replay
                         * @enum {boolean}
                         */
                        cached?: true;
                    };
                };
            };
            /** @description Redirect mode: to the success URL, the redirect field or /thanks; on an error, to the error URL with ?error=<code> */
            303: {
                headers: {
                    /** @description Where the browser goes next */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
        };
    };
    submitFormPreflight: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The form ID */
                formId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The CORS headers: any origin may POST */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                    "text/html": string;
                };
            };
        };
    };
    getAltchaChallenge: {
        parameters: {
            query?: {
                /** @description The visit's start, as the previous challenge's X-Altcha-Config named it */
                since?: string;
            };
            header?: never;
            path: {
                /** @description The form ID */
                formId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An ALTCHA challenge: the widget finds the number whose SHA-256 with the salt is the challenge */
            200: {
                headers: {
                    /** @description JSON the widget applies: `strings` (its texts) and `challengeurl` (the next challenge) */
                    "X-Altcha-Config"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        algorithm: "SHA-256";
                        challenge: string;
                        maxnumber: number;
                        /** @description Carries the form, the issue time and the expiry (signed) */
                        salt: string;
                        signature: string;
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getAltchaChallengePreflight: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The form ID */
                formId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The CORS headers: any origin may GET */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getFileByLink: {
        parameters: {
            query?: {
                /** @description Unix time the link stops working */
                expires?: string;
                /** @description The link's HMAC */
                signature?: string;
            };
            header?: never;
            path: {
                /** @description File ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, always as an attachment (Content-Disposition: attachment), application/octet-stream, with X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox. X-File-Type is the type its content was told as. */
            200: {
                headers: {
                    /** @description attachment, with the cleaned file name */
                    "Content-Disposition"?: string;
                    /** @description The MIME type the content was told as by its magic bytes */
                    "X-File-Type"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description file_not_scanned (file downloads: the file is not yet scanned clean for malware; retry after Retry-After seconds) */
            409: {
                headers: {
                    /** @description Seconds until the file is scanned again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: {
                            id: string;
                            email: string;
                            displayName: string;
                            /** @enum {string} */
                            planId: "free" | "pro" | "business";
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listForms: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every form of the account */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        forms: {
                            id: string;
                            name: string;
                            /** @enum {integer} */
                            isActive: 0 | 1;
                            /** Format: date-time */
                            createdAt: string;
                        }[];
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createForm: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /**
                     * @description Whether the form takes submissions: true or 1, false or 0
                     * @enum {unknown}
                     */
                    isActive?: true | false | 0 | 1;
                    /** @description Letters, digits, dots, dashes and underscores, starting with a letter or digit; null removes it */
                    key?: string | null;
                    /** @description Settings to change, by name (docs/api.md); null clears one; a secret given as "set" keeps its value */
                    settings?: {
                        [key: string]: unknown;
                    };
                    /** @description The whole list of notification addresses (at most 5) */
                    recipients?: string[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    /** @description Changes whenever the resource does: send it back in If-Match to write only over what was read */
                    ETag?: string;
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        form: {
                            id: string;
                            /** @description The stable name a configuration file gives the form; unique per account */
                            key: string | null;
                            name: string;
                            /** @enum {integer} */
                            isActive: 0 | 1;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            /** @description Every setting of the form, as the dashboard has them (docs/api.md); secrets (accessKey, turnstileSecret, hcaptchaSecret, recaptchaSecret) only as "set" or null */
                            settings: {
                                [key: string]: unknown;
                            };
                            /** @description Addresses notified of submissions (each confirms by email first) */
                            recipients: string[];
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getForm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The form */
            200: {
                headers: {
                    /** @description Changes whenever the resource does: send it back in If-Match to write only over what was read */
                    ETag?: string;
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        form: {
                            id: string;
                            /** @description The stable name a configuration file gives the form; unique per account */
                            key: string | null;
                            name: string;
                            /** @enum {integer} */
                            isActive: 0 | 1;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            /** @description Every setting of the form, as the dashboard has them (docs/api.md); secrets (accessKey, turnstileSecret, hcaptchaSecret, recaptchaSecret) only as "set" or null */
                            settings: {
                                [key: string]: unknown;
                            };
                            /** @description Addresses notified of submissions (each confirms by email first) */
                            recipients: string[];
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteForm: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
                /** @description The ETag the resource had when read: the write happens only if it still has it, else 412 precondition_failed */
                "if-match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description precondition_failed: the resource changed since the ETag sent in If-Match was read; read it again */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateForm: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
                /** @description The ETag the resource had when read: the write happens only if it still has it, else 412 precondition_failed */
                "if-match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /**
                     * @description Whether the form takes submissions: true or 1, false or 0
                     * @enum {unknown}
                     */
                    isActive?: true | false | 0 | 1;
                    /** @description Letters, digits, dots, dashes and underscores, starting with a letter or digit; null removes it */
                    key?: string | null;
                    /** @description Settings to change, by name (docs/api.md); null clears one; a secret given as "set" keeps its value */
                    settings?: {
                        [key: string]: unknown;
                    };
                    /** @description The whole list of notification addresses (at most 5) */
                    recipients?: string[];
                };
            };
        };
        responses: {
            /** @description Changed */
            200: {
                headers: {
                    /** @description Changes whenever the resource does: send it back in If-Match to write only over what was read */
                    ETag?: string;
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        form: {
                            id: string;
                            /** @description The stable name a configuration file gives the form; unique per account */
                            key: string | null;
                            name: string;
                            /** @enum {integer} */
                            isActive: 0 | 1;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            /** @description Every setting of the form, as the dashboard has them (docs/api.md); secrets (accessKey, turnstileSecret, hcaptchaSecret, recaptchaSecret) only as "set" or null */
                            settings: {
                                [key: string]: unknown;
                            };
                            /** @description Addresses notified of submissions (each confirms by email first) */
                            recipients: string[];
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description precondition_failed: the resource changed since the ETag sent in If-Match was read; read it again */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listIntegrations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every integration of the form */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        integrations: ({
                            id: string;
                            formId: string;
                            kind: string;
                            name: string;
                            enabled: boolean;
                            disabledReason?: string | null;
                            /** Format: date-time */
                            createdAt: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createIntegration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description The kind's settings and secrets as `formgate integrations add` takes them (docs/integrations.md); secrets are write-only */
        requestBody: {
            content: {
                "application/json": {
                    kind: string;
                    name?: string;
                    enabled?: boolean;
                    url?: string | null;
                    token?: string | null;
                    chatId?: string | null;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Added */
            201: {
                headers: {
                    /** @description Changes whenever the resource does: send it back in If-Match to write only over what was read */
                    ETag?: string;
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description An integration; secrets (webhook URLs, tokens, keys) only as "set" or null; each kind's settings beside */
                        integration: {
                            id: string;
                            formId: string;
                            kind: string;
                            name: string;
                            enabled: boolean;
                            disabledReason?: string | null;
                            /** Format: date-time */
                            createdAt: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                integrationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The integration */
            200: {
                headers: {
                    /** @description Changes whenever the resource does: send it back in If-Match to write only over what was read */
                    ETag?: string;
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description An integration; secrets (webhook URLs, tokens, keys) only as "set" or null; each kind's settings beside */
                        integration: {
                            id: string;
                            formId: string;
                            kind: string;
                            name: string;
                            enabled: boolean;
                            disabledReason?: string | null;
                            /** Format: date-time */
                            createdAt: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteIntegration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
                /** @description The ETag the resource had when read: the write happens only if it still has it, else 412 precondition_failed */
                "if-match"?: string;
            };
            path: {
                id: string;
                integrationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description precondition_failed: the resource changed since the ETag sent in If-Match was read; read it again */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateIntegration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
                /** @description The ETag the resource had when read: the write happens only if it still has it, else 412 precondition_failed */
                "if-match"?: string;
            };
            path: {
                id: string;
                integrationId: string;
            };
            cookie?: never;
        };
        /** @description The kind's settings and secrets as `formgate integrations add` takes them (docs/integrations.md); secrets are write-only */
        requestBody: {
            content: {
                "application/json": {
                    kind?: string;
                    name?: string;
                    enabled?: boolean;
                    url?: string | null;
                    token?: string | null;
                    chatId?: string | null;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Changed */
            200: {
                headers: {
                    /** @description Changes whenever the resource does: send it back in If-Match to write only over what was read */
                    ETag?: string;
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description An integration; secrets (webhook URLs, tokens, keys) only as "set" or null; each kind's settings beside */
                        integration: {
                            id: string;
                            formId: string;
                            kind: string;
                            name: string;
                            enabled: boolean;
                            disabledReason?: string | null;
                            /** Format: date-time */
                            createdAt: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description precondition_failed: the resource changed since the ETag sent in If-Match was read; read it again */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listFormSubmissions: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The nextCursor of the previous page of this form (signed; any other value is validation_failed). It pages on with the spam, since and until it was made with: repeat them as they were or leave them out; other values are validation_failed naming cursor */
                cursor?: string;
                /** @description Only spam (true) or only not spam (false); both when absent */
                spam?: "true" | "false";
                /** @description Only submissions created at or after this instant: an ISO 8601 date (2026-11-22, the start of that UTC day) or date-time with a zone (2026-11-22T10:15:30Z, 2026-11-22T11:15:30+01:00) */
                since?: string;
                /** @description Only submissions created before this instant (exclusive); the same forms as since, and later than it */
                until?: string;
            };
            header?: never;
            path: {
                /** @description Form ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of submissions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        submissions: {
                            id: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            createdAt: string;
                            /** @enum {string} */
                            status: "delivered";
                            /** @enum {integer} */
                            isSpam: 0 | 1;
                            /**
                             * @description Why the submission is spam: honeypot, bot_check, blocked_term, blocked_email, too_many_links, marked (by the owner), too_fast (an ALTCHA solution sent sooner than the form's minimum fill time) classifier (the learning filter) or malware (clamd found malware in a file, which was not kept); null when it is not spam
                             * @enum {string|null}
                             */
                            spamReason: "honeypot" | "bot_check" | "blocked_term" | "blocked_email" | "too_many_links" | "marked" | "too_fast" | "classifier" | "malware" | null;
                            /** @description Two-letter country code; XX when unknown */
                            country: string;
                            /** @description Field name to value (string, number, boolean, null or an array of those); control fields are not in it. On a form that keeps files, a file field holds {"file": {id, name, size, type}} (an array of them for several files); download it at GET /v1/api/files/{id} */
                            payload: {
                                [key: string]: unknown;
                            };
                            /** @description The team inbox's state of the submission (kept beside it; the other fields never change with it) */
                            triage: {
                                /** @description Opened in the dashboard, or marked read */
                                read: boolean;
                                /**
                                 * @description open until someone marks it done
                                 * @enum {string}
                                 */
                                state: "open" | "done";
                                /**
                                 * Format: email
                                 * @description The assigned member's email; null when nobody is assigned
                                 */
                                assignee: string | null;
                                /** @description Lower case, alphabetical */
                                tags: string[];
                            };
                        }[];
                        /** @description null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getSubmission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Submission ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The submission */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        submission: {
                            id: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            createdAt: string;
                            /** @enum {string} */
                            status: "delivered";
                            /** @enum {integer} */
                            isSpam: 0 | 1;
                            /**
                             * @description Why the submission is spam: honeypot, bot_check, blocked_term, blocked_email, too_many_links, marked (by the owner), too_fast (an ALTCHA solution sent sooner than the form's minimum fill time) classifier (the learning filter) or malware (clamd found malware in a file, which was not kept); null when it is not spam
                             * @enum {string|null}
                             */
                            spamReason: "honeypot" | "bot_check" | "blocked_term" | "blocked_email" | "too_many_links" | "marked" | "too_fast" | "classifier" | "malware" | null;
                            /** @description Two-letter country code; XX when unknown */
                            country: string;
                            /** @description Field name to value (string, number, boolean, null or an array of those); control fields are not in it. On a form that keeps files, a file field holds {"file": {id, name, size, type}} (an array of them for several files); download it at GET /v1/api/files/{id} */
                            payload: {
                                [key: string]: unknown;
                            };
                            /** @description The team inbox's state of the submission (kept beside it; the other fields never change with it) */
                            triage: {
                                /** @description Opened in the dashboard, or marked read */
                                read: boolean;
                                /**
                                 * @description open until someone marks it done
                                 * @enum {string}
                                 */
                                state: "open" | "done";
                                /**
                                 * Format: email
                                 * @description The assigned member's email; null when nobody is assigned
                                 */
                                assignee: string | null;
                                /** @description Lower case, alphabetical */
                                tags: string[];
                            };
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listHooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every subscription of the account */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        hooks: {
                            id: string;
                            formId: string;
                            /** Format: uri */
                            targetUrl: string;
                            /** Format: date-time */
                            createdAt: string;
                        }[];
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createHook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    formId: string;
                    targetUrl: string;
                };
            };
        };
        responses: {
            /** @description Subscribed; the secret is shown only here (and to a repeat with the same Idempotency-Key) */
            201: {
                headers: {
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        hook: {
                            id: string;
                            formId: string;
                            /** Format: uri */
                            targetUrl: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description whsec_… signing secret, shown only in this response */
                            secret: string;
                        };
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Refused: access_denied, form_inactive, origin_not_allowed (submit) or plan_required (hooks) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteHook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing */
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    /** @description Present on a replayed first answer */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    redeliverHook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description ISO 8601 time: deliveries of submissions from then on */
                    since: string;
                    /** @description ISO 8601 time: deliveries of submissions before then (default: now) */
                    until?: string;
                };
            };
        };
        responses: {
            /** @description Queued; sent by the outbox as soon as it can */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        queued: number;
                    };
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description payload_too_large: the body is over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description File ID */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, always as an attachment (Content-Disposition: attachment), application/octet-stream, with X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox. X-File-Type is the type its content was told as. */
            200: {
                headers: {
                    /** @description attachment, with the cleaned file name */
                    "Content-Disposition"?: string;
                    /** @description The MIME type the content was told as by its magic bytes */
                    "X-File-Type"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description validation_failed: a malformed request, a field failing validation (fieldErrors names it), a bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description unauthorized: the API key is missing, malformed, unknown or revoked */
            401: {
                headers: {
                    /** @description The scheme to authenticate with */
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_found: no such resource for this account */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description request_timeout: the request was not fully received in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description file_not_scanned (file downloads: the file is not yet scanned clean for malware; retry after Retry-After seconds) */
            409: {
                headers: {
                    /** @description Seconds until the file is scanned again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description rate_limited: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the limit resets */
                    "Retry-After"?: number;
                    /** @description Requests allowed in the window */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the window */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: something unexpected; requestId names the log lines */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description internal_error: the server is shutting down; retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
}
