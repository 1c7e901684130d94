/** proto3 strings cannot be absent, so empty means unset: JSON answers show it as null. */
export const orNull = (value: string): string | null => value || null;
