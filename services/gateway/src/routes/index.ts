import { adminRoutes } from './admin';
import { agentRoutes } from './agents';
import { assistantRoutes } from './assistants';
import { catalogRoutes } from './catalog';
import { contentRoutes } from './content';
import { eventTypeRoutes } from './event-types';
import { eventRoutes } from './events';
import { knowledgeRoutes } from './knowledge';
import { modelRoutes } from './models';
import { openAiRoutes } from './openai';
import { organizationRoutes } from './organization';
import { recommendationRoutes } from './recommendations';
import { requestRoutes } from './requests';
import { systemRoutes } from './system';
import { teamRoutes } from './teams';
import { usageRoutes } from './usage';
import { webhookRoutes } from './webhooks';
import type { AnyRoute } from './types';

/** The one route table: served by the router and described by /openapi.json. Order matters for overlaps. */
export const routeTable: AnyRoute[] = [
  ...contentRoutes,
  ...assistantRoutes,
  ...knowledgeRoutes,
  ...agentRoutes,
  ...recommendationRoutes,
  ...catalogRoutes,
  ...webhookRoutes,
  ...eventTypeRoutes,
  ...eventRoutes,
  ...requestRoutes,
  ...usageRoutes,
  ...organizationRoutes,
  ...teamRoutes,
  ...adminRoutes,
  ...modelRoutes,
  ...openAiRoutes,
  ...systemRoutes,
];

export type { AnyRoute, RouteSpec, RouteDeps } from './types';
