import type { RemoteEntry } from './registry-schema';

/** One deployment of a model as it runs: the entry's settings with the deployment's over them. */
export interface ResolvedDeployment {
  id: string;
  weight: number;
  entry: RemoteEntry;
}

function hostOf(url: string | undefined): string {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
}

/** The entry's deployments, each a complete remote entry of its own (none: the entry has none). */
export function deploymentsOf(entry: RemoteEntry): ResolvedDeployment[] {
  return (entry.deployments ?? []).map(({ id, weight, ...overrides }) => {
    const merged: RemoteEntry = { ...entry, ...overrides, deployments: undefined };
    return { id: id ?? hostOf(merged.baseUrl), weight: weight ?? 1, entry: merged };
  });
}

/** What is wrong with an entry's deployments (unique ids, a URL each, Azure's api-version). */
export function deploymentProblems(entry: RemoteEntry): string[] {
  if (!entry.deployments) {
    return entry.routing !== undefined || entry.cooldownSeconds !== undefined
      ? [`model ${entry.id}: routing and cooldownSeconds apply to deployments; it has none`]
      : [];
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [index, deployment] of deploymentsOf(entry).entries()) {
    const at = `model ${entry.id}: deployment ${index + 1}`;
    if (!deployment.entry.baseUrl) problems.push(`${at} has no baseUrl (nor has the model)`);
    if (deployment.entry.provider === 'azure-openai' && !deployment.entry.apiVersion)
      problems.push(`${at}: azure-openai needs apiVersion`);
    if (seen.has(deployment.id))
      problems.push(`${at}: id "${deployment.id}" is used twice; give each deployment an id`);
    seen.add(deployment.id);
  }
  return problems;
}
