import {
  integerFlag,
  onePositional,
  pairFlag,
  sharesFlag,
  stringFlag,
  UsageError,
  type ParsedArgs,
} from './args';
import { record, table } from './format';

/** One HTTP call to the admin API, and how its answer is shown to a person. */
export interface AdminRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  render(body: unknown): string;
}

type Row = Record<string, unknown>;
const ORG_COLUMNS = [
  'id',
  'name',
  'monthlyTokenQuota',
  'hardQuota',
  'cacheHitsBilled',
  'thresholdShares',
  'rateLimits',
  'timeZone',
  'createdAt',
];
const KEY_COLUMNS = ['keyId', 'organization', 'name', 'createdAt', 'revokedAt'];

const showRecord = (body: unknown) => record(body as Row);

/** The issued key goes on its own line: it is shown this once. */
function showIssued(body: unknown): string {
  const { key, ...rest } = body as Row;
  return `${record(rest)}\n\nAPI key (shown once, store it now):\n${String(key)}`;
}

function dropUndefined(object: Row): Row {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

function rateLimits(args: ParsedArgs): Row | undefined {
  const limits = dropUndefined({
    requestsPerMinute: integerFlag(args, 'rpm'),
    tokensPerMinute: integerFlag(args, 'tpm'),
  });
  return Object.keys(limits).length > 0 ? limits : undefined;
}

function settings(args: ParsedArgs): Row {
  return dropUndefined({
    name: stringFlag(args, 'name'),
    monthlyTokenQuota: integerFlag(args, 'quota'),
    thresholdShares: sharesFlag(args, 'thresholds'),
    hardQuota: pairFlag(args, 'hard', 'soft'),
    cacheHitsBilled: pairFlag(args, 'bill-cache-hits', 'free-cache-hits'),
    rateLimits: rateLimits(args),
    timeZone: stringFlag(args, 'time-zone'),
  });
}

const orgPath = (id: string) => `/api/v2/admin/organizations/${encodeURIComponent(id)}`;
const keyPath = (keyId: string) => `/api/v2/admin/keys/${encodeURIComponent(keyId)}`;

const COMMANDS: Record<string, (args: ParsedArgs) => AdminRequest> = {
  'org create': (args) => {
    const id = stringFlag(args, 'id') ?? args.positionals[0];
    if (!id) throw new UsageError('org create needs --id <slug>');
    const body = { id, ...settings(args) };
    if (!('name' in body) || !('monthlyTokenQuota' in body))
      throw new UsageError('org create needs --name and --quota');
    return { method: 'POST', path: '/api/v2/admin/organizations', body, render: showRecord };
  },
  'org list': () => ({
    method: 'GET',
    path: '/api/v2/admin/organizations',
    render: (body) => table((body as { organizations: Row[] }).organizations, ORG_COLUMNS),
  }),
  'org get': (args) => ({
    method: 'GET',
    path: orgPath(onePositional(args, 'organization id')),
    render: showRecord,
  }),
  'org update': (args) => {
    const body = settings(args);
    if (Object.keys(body).length === 0)
      throw new UsageError(
        'org update needs at least one of --name --quota --thresholds --hard --soft --rpm --tpm --time-zone --bill-cache-hits --free-cache-hits',
      );
    return {
      method: 'PATCH',
      path: orgPath(onePositional(args, 'organization id')),
      body,
      render: showRecord,
    };
  },
  'key issue': (args) => ({
    method: 'POST',
    path: `${orgPath(onePositional(args, 'organization id'))}/keys`,
    body: dropUndefined({ name: stringFlag(args, 'name') }),
    render: showIssued,
  }),
  'key list': (args) => ({
    method: 'GET',
    path: `${orgPath(onePositional(args, 'organization id'))}/keys`,
    render: (body) => table((body as { keys: Row[] }).keys, KEY_COLUMNS),
  }),
  'key revoke': (args) => ({
    method: 'POST',
    path: `${keyPath(onePositional(args, 'key id'))}/revoke`,
    body: {},
    render: showRecord,
  }),
  'key rotate': (args) => ({
    method: 'POST',
    path: `${keyPath(onePositional(args, 'key id'))}/rotate`,
    body: dropUndefined({ gracePeriodSeconds: integerFlag(args, 'grace') }),
    render: showIssued,
  }),
};

export const USAGE = `Usage: npm run admin -- <command> [options]

  org create --id <slug> --name <name> --quota <tokens> [--thresholds 0.9,1.0] [--hard|--soft] [--rpm N] [--tpm N] [--time-zone Europe/Berlin] [--bill-cache-hits|--free-cache-hits]
  org list
  org get <id>
  org update <id> [--name ..] [--quota N] [--thresholds ..] [--hard|--soft] [--rpm N] [--tpm N] [--time-zone Europe/Berlin] [--bill-cache-hits|--free-cache-hits]
  key issue <org> [--name <label>]
  key list <org>
  key revoke <keyId>
  key rotate <keyId> [--grace <seconds>]

Options: --json (print the API's JSON), --url <gateway URL>
Environment: GATEWAY_URL (default http://localhost:8080), ADMIN_TOKEN (required)
Exit codes: 0 ok, 1 the gateway refused (error printed), 2 usage error, 3 gateway unreachable`;

/** The request a command line stands for; UsageError when it is not a command. */
export function requestFor(words: string[], args: ParsedArgs): AdminRequest {
  const command = COMMANDS[words.join(' ')];
  if (!command) throw new UsageError(`unknown command "${words.join(' ')}"`);
  return command(args);
}
