import { AppError, type CallContext } from '@switchyard/shared';
import type { GetSessionRequest__Output, SessionView } from '@switchyard/shared/proto/assistant/v1';
import type { SessionStore } from '../store/sessions/port';

/** The stored conversation of a session of the caller's organization (another organization's is not found). */
export async function getSession(
  { sessions }: { sessions: SessionStore },
  request: GetSessionRequest__Output,
  context: CallContext,
): Promise<SessionView> {
  if (!context.organization) throw new AppError('unauthorized', 'the call carries no organization');
  const session = await sessions.get(context.organization, request.session_id);
  if (!session) throw AppError.notFound(`session '${request.session_id}' not found`);
  const { onboarding } = session.memory;
  return {
    session_id: session.sessionId,
    user_id: session.userId,
    agent: session.agent,
    messages: session.messages,
    onboarding: {
      confirmed_steps: onboarding.confirmedSteps,
      current_step: onboarding.lastStep,
      draft_json: onboarding.draft ? JSON.stringify(onboarding.draft) : '',
    },
    summary: session.summary?.text ?? '',
    created_at: session.createdAt,
    updated_at: session.updatedAt,
  };
}
