import { de } from './de';
import { en } from './en';
import { es } from './es';
import { fr } from './fr';
import type { LanguageBank } from './types';

export * from './types';

export const LANGUAGE_BANKS: Record<string, LanguageBank> = { en, fr, de, es };
export const SUPPORTED_LANGUAGES = Object.keys(LANGUAGE_BANKS);
