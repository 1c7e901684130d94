import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { newId, type Logger } from '@switchyard/shared';
import { errorBody, type Rendered } from './errors';

/** The HTTP parser's refusals (no Koa context exists yet) as the contract's error body. */
function problemOfParserError(code: string | undefined): Rendered {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      code: 'headers_too_large',
      message: 'request line or headers exceed the size limit',
      details: [],
      headers: {},
    };
  }
  if (code === 'CONNECT') {
    return {
      status: 405,
      code: 'method_not_allowed',
      message: 'CONNECT is not allowed: the gateway is not a proxy',
      details: [],
      headers: {},
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      code: 'timeout',
      message: 'the request was not received in time',
      details: [],
      headers: {},
    };
  }
  return {
    status: 400,
    code: 'invalid_request',
    message: 'malformed HTTP request',
    details: [],
    headers: {},
  };
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * server.on('clientError'): answers with the error body and a request id (Node's default is an
 * empty 400/431), then closes the connection. Logged by code only: the raw packet holds the
 * request's headers, keys included.
 */
export function clientErrorHandler(logger: Logger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const request = (response as (ServerResponse & { req?: IncomingMessage }) | undefined)?.req;
    // The body of the request being answered broke off (bad chunk framing): it can never complete,
    // so it is refused now, under its own request id, rather than left to wait for the request timeout.
    if (response && request && !request.complete)
      refuse(socket, error.code, logger, String(response.getHeader('x-request-id') ?? ''));
    // A request before the malformed one on this connection gets its answer first.
    else if (response) response.once('finish', () => refuse(socket, error.code, logger));
    else refuse(socket, error.code, logger);
  };
}

/** server.on('connect'): the gateway is no proxy; CONNECT gets 405 with the error body (Node's default drops the connection). */
export function connectHandler(logger: Logger) {
  return (_request: IncomingMessage, socket: Socket): void => refuse(socket, 'CONNECT', logger);
}

function refuse(
  socket: Socket,
  code: string | undefined,
  logger: Logger,
  knownRequestId = '',
): void {
  if (!socket.writable) return;
  const requestId = knownRequestId || newId('req');
  const problem = problemOfParserError(code);
  logger.debug({ requestId, code }, 'malformed HTTP request refused');
  const body = JSON.stringify(errorBody(problem, requestId));
  socket.end(
    `HTTP/1.1 ${problem.status} ${REASONS[problem.status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
