import type { RequestRecord } from '../schema/request-record.ts';
import type { DriverContext, DriverRequest, DriverSpecBase, DriverStep, PhaseDriver } from './driver.ts';
import { DONE, WAIT } from './driver.ts';
import { buildConversationPayload, type ChatMessage, type PayloadOptions } from './payload.ts';

/**
 * Multi-turn conversations, the first driver whose requests depend on others: turn N+1 of a session is
 * sent only after turn N finished, with the whole conversation so far (turn N's generated text as the
 * assistant's message), and carries the session's id in a header. A session stays on one thread: thread t
 * of T replays sessions t, t+T, t+2T, …; the threads share the dispatch counter for request indices.
 * A failed turn still moves its session on, with whatever text came back.
 */

export interface ConversationTurn {
  /** The user's message of this turn. */
  user: string;
  maxTokens: number;
  /** The user message's length in tokens, as the workload counted it. */
  inputTokens: number;
}

export interface ConversationSession {
  id: string;
  turns: ConversationTurn[];
}

export interface ConversationSpec extends DriverSpecBase {
  kind: 'conversations';
  total: number;
  independent: false;
  payload: PayloadOptions;
  sessions: ConversationSession[];
  /** Header that carries the session id (e.g. for a router's affinity); null to send none. */
  sessionHeader: string | null;
}

export function conversationSpec(
  payload: PayloadOptions,
  sessions: ConversationSession[],
  sessionHeader: string | null,
): ConversationSpec {
  const total = sessions.reduce((n, s) => n + s.turns.length, 0);
  return { kind: 'conversations', total, independent: false, payload, sessions, sessionHeader };
}

interface SessionState {
  session: ConversationSession;
  /** Session number in the spec (turn identity: promptIndex = first turn's global number + turn). */
  firstTurn: number;
  turn: number;
  history: ChatMessage[];
  /** Tokens of the history so far: counted user messages plus the server's completion counts. */
  historyTokens: number;
}

export function createConversationDriver(spec: ConversationSpec, ctx: DriverContext): PhaseDriver {
  const ready: SessionState[] = [];
  const inFlight = new Map<number, SessionState>();
  let firstTurn = 0;
  let left = 0;
  spec.sessions.forEach((session, s) => {
    if (s % ctx.threads === ctx.thread && session.turns.length > 0) {
      ready.push({ session, firstTurn, turn: 0, history: [], historyTokens: 0 });
      left += session.turns.length;
    }
    firstTurn += session.turns.length;
  });
  return {
    next(): DriverStep {
      const state = ready.shift();
      if (state === undefined) return left > 0 ? WAIT : DONE;
      left--;
      const turn = state.session.turns[state.turn] as ConversationTurn;
      const messages: ChatMessage[] = [...state.history, { role: 'user', content: turn.user }];
      const index = Atomics.add(ctx.dispatch, 0, 1);
      const request: DriverRequest = {
        index,
        promptIndex: state.firstTurn + state.turn,
        body: buildConversationPayload(spec.payload, messages, turn.maxTokens),
        maxTokens: turn.maxTokens,
        inputTokens: {
          target: state.historyTokens + turn.inputTokens,
          client: state.historyTokens + turn.inputTokens,
        },
        headers: spec.sessionHeader ? { [spec.sessionHeader]: state.session.id } : null,
        arrivalOffsetMs: null,
      };
      inFlight.set(index, state);
      return request;
    },
    complete(request: DriverRequest, record: RequestRecord, text: string) {
      const state = inFlight.get(request.index);
      if (state === undefined) return;
      inFlight.delete(request.index);
      const turn = state.session.turns[state.turn] as ConversationTurn;
      state.history.push({ role: 'user', content: turn.user }, { role: 'assistant', content: text });
      state.historyTokens += turn.inputTokens + (record.outputTokens.server ?? 0);
      state.turn++;
      if (state.turn < state.session.turns.length) ready.push(state);
    },
  };
}
