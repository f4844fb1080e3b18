import { eventually } from '#libs/testing';

export interface SseMessage {
  id: string;
  event: string;
  data: string;
}

/**
 * A Server-Sent Events client over fetch, as a frontend holding a session token would use one (browsers'
 * EventSource cannot send an Authorization header). Parses the stream as the SSE spec says.
 */
export class SseClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  private readonly controller = new AbortController();
  private ended = false;

  private constructor(readonly status: number) {}

  /** `credential`: a bearer token, or the console's cookie as `{ cookie }`. */
  static async open(
    url: string,
    credential: string | { cookie: string },
    lastEventId?: string,
  ): Promise<SseClient> {
    const client = new SseClient(0);
    const response = await fetch(url, {
      headers: {
        ...(typeof credential === 'string'
          ? { authorization: `Bearer ${credential}` }
          : { cookie: credential.cookie }),
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      signal: client.controller.signal,
    });
    if (response.status !== 200 || !response.body) {
      throw new Error(`stream answered ${response.status}: ${await response.text()}`);
    }
    void client.read(response.body);
    return client;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: Partial<SseMessage> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) message.id = line.slice(4);
            else if (line.startsWith('event: ')) message.event = line.slice(7);
            else if (line.startsWith('data: '))
              message.data = (message.data ? `${message.data}\n` : '') + line.slice(6);
          }
          if (message.data !== undefined) this.messages.push(message as SseMessage);
        }
      }
    } catch {
      // aborted by close()
    } finally {
      this.ended = true;
    }
  }

  get closedByServer(): boolean {
    return this.ended;
  }

  /** The first `count` messages, once they have arrived. */
  waitFor(count: number): Promise<SseMessage[]> {
    return eventually(`${count} stream messages`, () =>
      this.messages.length >= count ? this.messages.slice(0, count) : undefined,
    );
  }

  waitForComment(text: string): Promise<true> {
    return eventually(`a "${text}" comment`, () => (this.comments.includes(text) ? true : undefined));
  }

  close(): void {
    this.controller.abort();
  }
}
