import {
  Metadata,
  connectivityState,
  status as GrpcStatus,
  type ChannelInterface,
  type Deadline,
  type InterceptingListener,
  type StatusObject,
} from '@grpc/grpc-js';
import {
  InProcessServerCall,
  inProcessEndpoint,
  IN_PROCESS_HIGH_WATER_MARK,
  type InProcessPeer,
} from './in-process-server';

/**
 * The client half of the in-process transport: a grpc-js Channel (given to the client as
 * channelOverride) whose calls go to a server of this process (in-process-server.ts) instead of
 * over HTTP/2. Everything above the channel is grpc-js's own: interceptors, protobuf serialization
 * of requests and responses, metadata, deadlines, statuses. What this layer does itself is what
 * grpc-js's transport does: start the server's handler when the request is complete, hand messages
 * over as the reader asks for them, end the call on its deadline or a cancellation, and report
 * UNAVAILABLE when the server has stopped. Like grpc-java's InProcessChannel, without a name
 * registry of its own: the address is the server's Unix socket.
 */
export class InProcessChannel implements ChannelInterface {
  private callNumber = 0;
  private closed = false;

  constructor(private readonly address: string) {}

  close(): void {
    this.closed = true;
  }

  getTarget(): string {
    return this.address;
  }

  getConnectivityState(): connectivityState {
    if (this.closed) return connectivityState.SHUTDOWN;
    return inProcessEndpoint(this.address)?.serving
      ? connectivityState.READY
      : connectivityState.TRANSIENT_FAILURE;
  }

  watchConnectivityState(
    current: connectivityState,
    deadline: Date | number,
    callback: (error?: Error) => void,
  ): void {
    if (this.getConnectivityState() !== current) {
      setImmediate(callback);
      return;
    }
    // No state change to wait for in-process: the deadline passes.
    const ms = (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now();
    setTimeout(
      () => callback(new Error('Deadline passed without connectivity state change')),
      Math.max(0, ms),
    ).unref();
  }

  getChannelzRef(): ChannelRef {
    return { kind: 'channel', id: -1, name: this.address } as unknown as ChannelRef;
  }

  createCall(method: string, deadline: Deadline): Call {
    if (this.closed) throw new Error('Channel has been shut down');
    return new InProcessCall(this.address, method, deadline, this.callNumber++);
  }
}

// The call and channelz types of grpc-js's public Channel interface (channelOverride takes one).
type Call = ReturnType<ChannelInterface['createCall']>;
type MessageContext = Parameters<Call['sendMessageWithContext']>[0];
type ChannelRef = ReturnType<ChannelInterface['getChannelzRef']>;

const UNSET = -1;

/** One call, client side. Also the server call's peer: what the server sends comes here. */
class InProcessCall implements Call, InProcessPeer {
  private listener: InterceptingListener | undefined;
  private metadata = new Metadata();
  private request: Buffer | undefined;
  private server: InProcessServerCall | undefined;
  private readonly unread: Buffer[] = [];
  private readsWanted = 0;
  private headersSent = false;
  private status: StatusObject | undefined;
  private statusDelivered = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly deadlineMs: number;

  constructor(
    private readonly address: string,
    private readonly method: string,
    deadline: Deadline,
    private readonly callNumber: number,
  ) {
    const ms = deadline instanceof Date ? deadline.getTime() : deadline;
    this.deadlineMs = Number.isFinite(ms) ? ms : UNSET;
  }

  start(metadata: Metadata, listener: InterceptingListener): void {
    this.metadata = metadata;
    this.listener = listener;
    if (this.deadlineMs === UNSET) return;
    const left = this.deadlineMs - Date.now();
    if (left <= 0) {
      process.nextTick(() => this.expire());
      return;
    }
    this.timer = setTimeout(() => this.expire(), left);
    this.timer.unref();
  }

  sendMessageWithContext(context: MessageContext, message: Buffer): void {
    this.request = message;
    if (context.callback) process.nextTick(context.callback);
  }

  /** The request is complete: the server's handler starts, as on grpc-js, on a later tick. */
  halfClose(): void {
    process.nextTick(() => this.dispatch());
  }

  startRead(): void {
    this.readsWanted++;
    this.deliver();
  }

  cancelWithStatus(code: GrpcStatus, details: string): void {
    this.server?.cancel();
    this.end({ code, details, metadata: new Metadata() });
  }

  getPeer(): string {
    return 'in-process';
  }

  getCallNumber(): number {
    return this.callNumber;
  }

  setCredentials(): void {
    // Insecure in-process: there is nothing to authenticate.
  }

  getAuthContext(): null {
    return null;
  }

  // InProcessPeer: the server half's messages and status.

  push(message: Buffer): boolean {
    if (this.status) return false;
    this.unread.push(message);
    this.deliver();
    return this.unread.length < IN_PROCESS_HIGH_WATER_MARK;
  }

  finish(status: StatusObject): void {
    if (this.status) return;
    this.status = status;
    this.deliver();
  }

  private dispatch(): void {
    if (this.status) return; // cancelled or expired before the request was complete
    const endpoint = inProcessEndpoint(this.address);
    if (!endpoint?.serving)
      return this.end(failure(GrpcStatus.UNAVAILABLE, `no server at ${this.address}`));
    const method = endpoint.method(this.method);
    if (!method)
      return this.end(
        failure(
          GrpcStatus.UNIMPLEMENTED,
          `The server does not implement the method ${this.method}`,
        ),
      );
    let request: unknown;
    try {
      request = method.deserializeRequest(this.request ?? Buffer.alloc(0));
    } catch (error) {
      return this.end(
        failure(GrpcStatus.INTERNAL, `Error deserializing request: ${(error as Error).message}`),
      );
    }
    const deadline = this.deadlineMs === UNSET ? Infinity : this.deadlineMs;
    this.server = new InProcessServerCall(
      request,
      this.metadata.clone(),
      deadline,
      method,
      endpoint,
      this,
    );
    this.server.run();
  }

  private expire(): void {
    this.server?.cancel();
    this.end(failure(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'));
  }

  /** Ends the call now (cancellation, deadline, no server): unread messages are dropped. */
  private end(status: StatusObject): void {
    if (this.statusDelivered) return;
    this.unread.length = 0;
    this.status = status;
    this.deliver();
  }

  /** Headers first, then messages as the reader asks for them, then the status once all are read. */
  private deliver(): void {
    const listener = this.listener;
    if (!listener || this.statusDelivered) return;
    if (!this.headersSent && (this.unread.length > 0 || this.status)) {
      this.headersSent = true;
      listener.onReceiveMetadata(new Metadata());
    }
    const hadBacklog = this.unread.length >= IN_PROCESS_HIGH_WATER_MARK;
    while (this.readsWanted > 0 && this.unread.length > 0) {
      this.readsWanted--;
      listener.onReceiveMessage(this.unread.shift()!);
    }
    if (hadBacklog && this.unread.length < IN_PROCESS_HIGH_WATER_MARK) this.server?.drained();
    if (this.status && this.unread.length === 0 && !this.statusDelivered) {
      this.statusDelivered = true;
      if (this.timer) clearTimeout(this.timer);
      listener.onReceiveStatus(this.status);
    }
  }
}

function failure(code: GrpcStatus, details: string): StatusObject {
  return { code, details, metadata: new Metadata() };
}
