// What tracing.ts (which starts the SDK, loaded only when tracing is on) and tracing-sdk.ts share: apart,
// so that neither imports the other.

/** What starts tracing: the shape of `AppConfig['tracing']` (this library does not import the config). */
export interface TracingOptions {
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_SERVICE_NAME; null: the app's own name. */
  serviceName: string | null;
}

export interface Tracing {
  /** Exports what is still buffered (for at most a second or two), then stops. */
  shutdown(): Promise<void>;
}
