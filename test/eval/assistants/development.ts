import { allConversations } from './conversations';
import { importCollection, ok, type EvalSet } from './eval-set';
import { followUpConversations, followUpOrganizations } from './follow-ups';
import {
  EDUCATION_COURSES,
  ORGANIZATIONS,
  SHOP_ARTICLES,
  SHOP_ESCALATION,
  SUITE_NOW,
  TICKETING_EVENTS,
  VENDOR_STRINGS,
} from './organizations';

/**
 * The development set: the organizations and conversations the builtin engine is tuned against
 * (organizations.ts and conversations.ts; follow-ups.ts for conversation on phrasing it was not
 * first built on). Its score says the engine still does what it was
 * built to do; the held-out set (held-out/) says how it does on a new customer's first day.
 */
export function developmentSet(): EvalSet {
  return {
    name: 'development',
    now: SUITE_NOW,
    vendorStrings: VENDOR_STRINGS,
    conversations: [...allConversations(), ...followUpConversations(SUITE_NOW)],
    organizations: {
      ...followUpOrganizations(SUITE_NOW),
      ticketing: {
        ...ORGANIZATIONS.ticketing,
        load: (api) =>
          importCollection(api, { name: 'events', kind: 'events' }, { jsonl: TICKETING_EVENTS }),
      },
      education: {
        ...ORGANIZATIONS.education,
        async load(api) {
          await importCollection(
            api,
            { name: 'courses', kind: 'courses' },
            { jsonl: EDUCATION_COURSES },
          );
          await ok(
            'enrolment agent',
            api('/api/v2/agents/enrolment', {
              method: 'PUT',
              body: {
                base: 'onboarding',
                steps: [
                  {
                    title: 'Choose a course',
                    goal: 'Pick the course the learner wants to join.',
                    confirm: 'you know which course',
                  },
                  {
                    title: 'Learner details',
                    goal: 'Name and email of the learner.',
                    confirm: 'the details are complete',
                  },
                  { title: 'Payment', goal: 'Card or invoice.', confirm: 'payment is arranged' },
                ],
              },
            }),
          );
        },
      },
      shop: {
        ...ORGANIZATIONS.shop,
        escalation: SHOP_ESCALATION,
        async load(api) {
          await importCollection(api, { name: 'help', kind: 'articles' }, { jsonl: SHOP_ARTICLES });
          await ok(
            'support profile',
            api('/api/v2/agents/support', { method: 'PUT', body: { escalation: SHOP_ESCALATION } }),
          );
        },
      },
    },
  };
}
