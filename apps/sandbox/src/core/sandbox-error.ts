/**
 * Errors in the upstream's own shapes (upstream spec §7). Every sandbox route throws these; the filter renders
 * them. `shape` picks the wire form: `standard` (error with issues), `minimal` (some 401s) or
 * `fieldValidation` (an `errors` array).
 */
export interface UpstreamIssue {
  type: string;
  code: string | number;
  parameter?: string;
  message: string;
  institutionError?: { errorMessage: string; httpStatusCode: number };
}

export type ErrorShape = 'standard' | 'minimal' | 'fieldValidation';

export const STATUS_TEXT: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  424: 'FAILED_DEPENDENCY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL SERVER ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export class SandboxError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: UpstreamIssue[] = [],
    readonly options: {
      shape?: ErrorShape;
      source?: 'YAPILY' | 'INSTITUTION';
      institutionError?: { errorMessage: string; httpStatusCode: number };
      fieldErrors?: { fieldName: string; error: string }[];
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'SandboxError';
  }

  // ---- the errors the spec shows, by name

  static badRequest(message: string, code: string | number = 'BAD_REQUEST'): SandboxError {
    return new SandboxError(400, message, [{ type: 'BAD_REQUEST', code, message }]);
  }

  /** A value that is not allowed: issue type INVALID_REQUEST, code INVALID_PROPERTY_UNEXPECTED_VALUE. */
  static invalidProperty(parameter: string, message: string): SandboxError {
    return new SandboxError(400, message, [
      { type: 'INVALID_REQUEST', code: 'INVALID_PROPERTY_UNEXPECTED_VALUE', parameter, message },
    ]);
  }

  /** The field-validation shape: `{ errors: [{ fieldName, error: "MANDATORY" }] }`. */
  static mandatoryFields(fieldNames: string[]): SandboxError {
    return new SandboxError(400, 'Mandatory fields are missing', [], {
      shape: 'fieldValidation',
      fieldErrors: fieldNames.map((fieldName) => ({ fieldName, error: 'MANDATORY' })),
    });
  }

  static credentialsMissing(): SandboxError {
    return new SandboxError(401, 'Full authentication is required to access this resource', [
      { type: 'CREDENTIALS', code: 'CREDENTIALS_MISSING', message: 'No Authorization header was provided' },
    ]);
  }

  /** Wrong credentials answer in the minimal shape, as the real service does for some 401s. */
  static credentialsInvalid(): SandboxError {
    return new SandboxError(401, 'Invalid credentials', [], { shape: 'minimal' });
  }

  static forbidden(message: string, code = 'FORBIDDEN'): SandboxError {
    return new SandboxError(403, message, [{ type: 'FORBIDDEN', code, message }]);
  }

  /** An operation whose feature the institution does not support. */
  static featureNotSupported(feature: string, institutionId: string): SandboxError {
    const message = `Institution ${institutionId} does not support the feature ${feature}`;
    return new SandboxError(403, message, [
      { type: 'FEATURE_NOT_SUPPORTED', code: 'FEATURE_NOT_SUPPORTED', parameter: feature, message },
    ]);
  }

  static notFound(message: string): SandboxError {
    return new SandboxError(404, message, [{ type: 'NOT_FOUND', code: 'NOT_FOUND', message }]);
  }

  /** The consent header is missing, unknown, expired or revoked. */
  static consent(status: 400 | 401 | 403, code: string, message: string): SandboxError {
    return new SandboxError(status, message, [{ type: 'CONSENT', code, message }]);
  }

  static institution(message: string, httpStatusCode = 502): SandboxError {
    const institutionError = { errorMessage: message, httpStatusCode };
    return new SandboxError(
      424,
      'The institution failed',
      [{ type: 'INSTITUTION_ERROR', code: 'INSTITUTION_ERROR', message, institutionError }],
      { source: 'INSTITUTION', institutionError },
    );
  }

  /** The service's own failure (`source` YAPILY), or with `source` INSTITUTION a bank's reported as a 500. */
  static internal(
    message = 'Internal server error',
    source: 'YAPILY' | 'INSTITUTION' = 'YAPILY',
  ): SandboxError {
    return new SandboxError(
      500,
      message,
      [{ type: 'INTERNAL_SERVER_ERROR', code: 'INTERNAL_SERVER_ERROR', message }],
      { source },
    );
  }
}

/**
 * Webhook endpoints number their issue codes (upstream spec §7.2): 400 → 10600, 500 → 11000. Errors raised before a
 * webhook controller runs (a malformed body) still answer that way.
 */
const WEBHOOK_CODES: Record<number, number> = { 400: 10600, 500: 11000 };

export function webhookCodes(url: string, error: SandboxError): SandboxError {
  const code = WEBHOOK_CODES[error.status];
  if (
    !url.startsWith('/webhook/') ||
    code === undefined ||
    error.issues.every((i) => typeof i.code === 'number')
  ) {
    return error;
  }
  return new SandboxError(
    error.status,
    error.message,
    error.issues.map((issue) => (typeof issue.code === 'number' ? issue : { ...issue, code })),
    error.options,
  );
}
