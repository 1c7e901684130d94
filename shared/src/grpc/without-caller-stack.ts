/**
 * Starts a grpc-js call without the stack capture grpc-js does for every call (`new Error()` in
 * each make*Request, so that a failure's stack shows the caller). Our callers get their failures
 * as AppErrors built by fromServiceError, with stacks of their own, so the capture is only cost:
 * with it off, the embedded mesh spent 333-339 us per recommendations call through the gateway
 * instead of 358-365 (`MESH_NODE_ARGS=--stack-trace-limit=0`, bench/recommendation). The limit is
 * restored before anything else runs (the call starts synchronously); an error grpc-js throws
 * while starting a call (a request it cannot serialize) has no stack, only its message.
 */
export function withoutCallerStack<T>(start: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return start();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
