import { Metadata } from '@grpc/grpc-js';

/** Who is calling and for which request; set by the gateway, carried in gRPC metadata. */
export interface CallContext {
  organization: string;
  keyId: string;
  requestId: string;
}

const ORG = 'x-organization';
const KEY_ID = 'x-key-id';
const REQUEST_ID = 'x-request-id';

export function contextToMetadata(ctx: CallContext): Metadata {
  const md = new Metadata();
  md.set(ORG, ctx.organization);
  md.set(KEY_ID, ctx.keyId);
  md.set(REQUEST_ID, ctx.requestId);
  return md;
}

function first(md: Metadata, key: string): string {
  const value = md.get(key)[0];
  return typeof value === 'string' ? value : '';
}

export function contextFromMetadata(md: Metadata): CallContext {
  return { organization: first(md, ORG), keyId: first(md, KEY_ID), requestId: first(md, REQUEST_ID) };
}
