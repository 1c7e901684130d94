/** argv after the command words: positionals and --flags (--name value, --name=value, or a bare --switch). */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** Flags that never take a value. */
const SWITCHES = new Set(['hard', 'soft', 'bill-cache-hits', 'free-cache-hits', 'json', 'help']);

export class UsageError extends Error {}

export function parseArgs(argv: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (inline !== undefined) flags.set(name, inline);
    else if (SWITCHES.has(name)) flags.set(name, true);
    else {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    }
  }
  return { positionals, flags };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

export function integerFlag(args: ParsedArgs, name: string): number | undefined {
  const text = stringFlag(args, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new UsageError(`--${name} must be an integer, got "${text}"`);
  return value;
}

export function sharesFlag(args: ParsedArgs, name: string): number[] | undefined {
  const text = stringFlag(args, name);
  if (text === undefined) return undefined;
  const shares = text.split(',').map((part) => Number(part.trim()));
  if (shares.some((share) => !Number.isFinite(share)))
    throw new UsageError(`--${name} must be numbers separated by commas, e.g. 0.9,1.0`);
  return shares;
}

/** A pair of switches for one setting (--hard / --soft): true, false, or undefined when neither is given. */
export function pairFlag(args: ParsedArgs, on: string, off: string): boolean | undefined {
  const yes = args.flags.has(on);
  const no = args.flags.has(off);
  if (yes && no) throw new UsageError(`--${on} and --${off} cannot be combined`);
  return yes ? true : no ? false : undefined;
}

export function onePositional(args: ParsedArgs, what: string): string {
  if (args.positionals.length !== 1) throw new UsageError(`expected exactly one ${what}`);
  return args.positionals[0]!;
}
