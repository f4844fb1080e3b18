// The traffic a failover is judged by: requests in steady loops, every answer kept, and the two readings
// of them the failover tests make (the answers that break the promise, and the window until writes work).

/** One answer of the steady traffic: what was asked, when, and what came back (0: no answer at all). */
export interface TrafficAnswer {
  name: string;
  sentAt: number;
  answeredAt: number;
  status: number;
  retryAfterHeader: string | null;
  /** The error envelope's code and retryAfterSeconds, when the body is one. */
  code?: string;
  retryAfterSeconds?: number;
}

export interface TrafficRequest {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: () => unknown;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A request not answered this long counts as no answer (status 0): an enqueue gives up on Redis after 3 s
 * (ENQUEUE_DEADLINE_MS) and answers 503, so a request hanging past this is a defect, not the window.
 */
const NO_ANSWER_MS = 10_000;
/** Between one answer and the next request of a loop: steady traffic, not a flood on two cores. */
const PACE_MS = 100;

/**
 * Each request of `requests` in a loop of its own against `baseUrl`, as `token`, until `stop()`: every
 * answer kept, for a test to judge the window of a failover by.
 */
export function steadyTraffic(baseUrl: string, token: string, requests: TrafficRequest[]) {
  let running = true;
  const answers: TrafficAnswer[] = [];
  const loops = requests.map(async (request) => {
    while (running) {
      const sentAt = Date.now();
      const answer: TrafficAnswer = {
        name: request.name,
        sentAt,
        answeredAt: 0,
        status: 0,
        retryAfterHeader: null,
      };
      try {
        const response = await fetch(`${baseUrl}${request.path}`, {
          method: request.method,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            ...request.headers,
          },
          body: request.body ? JSON.stringify(request.body()) : undefined,
          signal: AbortSignal.timeout(NO_ANSWER_MS),
        });
        answer.status = response.status;
        answer.retryAfterHeader = response.headers.get('retry-after');
        const body = (await response.json().catch(() => undefined)) as
          { error?: { code?: string; retryAfterSeconds?: number } } | undefined;
        answer.code = body?.error?.code;
        answer.retryAfterSeconds = body?.error?.retryAfterSeconds;
      } catch {
        // No answer within NO_ANSWER_MS, or the connection failed: status 0 says so.
      }
      answer.answeredAt = Date.now();
      answers.push(answer);
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
  });
  return {
    answers,
    async stop(): Promise<void> {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** The answers that break the failover promise: anything but 2xx, or 503 with Retry-After in both places. */
export function badAnswers(answers: readonly TrafficAnswer[]): TrafficAnswer[] {
  return answers.filter(
    (a) =>
      !(a.status >= 200 && a.status < 300) &&
      !(
        a.status === 503 &&
        Number(a.retryAfterHeader) > 0 &&
        a.retryAfterSeconds === Number(a.retryAfterHeader) &&
        a.code !== undefined
      ),
  );
}

/** How a test reads a failover's window from its traffic: seconds from `at` to the first 2xx of `name` sent after it. */
export function secondsToFirstSuccess(
  answers: readonly TrafficAnswer[],
  name: string,
  at: number,
): number | undefined {
  const first = answers
    .filter((a) => a.name === name && a.sentAt >= at && a.status >= 200 && a.status < 300)
    .sort((a, b) => a.answeredAt - b.answeredAt)[0];
  return first ? (first.answeredAt - at) / 1000 : undefined;
}
