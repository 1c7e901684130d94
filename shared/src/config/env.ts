import { cleanEnv, makeValidator, type ValidatorSpec } from 'envalid';

export { bool, num, port, str, url, host, json } from 'envalid';

type Specs<T> = { [K in keyof T]: ValidatorSpec<T[K]> };

/**
 * Reads and validates environment variables, failing fast with every problem listed at once.
 * Throws instead of exiting so that embedded mode and tests can report it themselves.
 */
export function readEnv<T extends object>(
  specs: Specs<T>,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<T> {
  return cleanEnv(env, specs as never, {
    reporter: ({ errors }) => {
      const problems = Object.entries(errors).map(
        ([name, error]) => `${name}: ${(error as Error).message}`,
      );
      if (problems.length > 0)
        throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
    },
  }) as unknown as Readonly<T>;
}

/** A TCP port where 0 means "any free port" (embedded mode and tests bind services to port 0). */
export const listenPort = makeValidator<number>((input: string) => {
  const value = Number(input);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new Error('must be a port number 0..65535');
  return value;
});
