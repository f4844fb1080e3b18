import { Injectable } from '@nestjs/common';

/** A notification the sandbox sends to the webhooks an application registered for its category. */
export interface SandboxEvent {
  applicationId: string;
  /** Webhook category, e.g. `payment.state.success`. */
  type: string;
  data: Record<string, unknown>;
}

export type SandboxEventListener = (event: SandboxEvent) => void;

/**
 * The in-process bus between the modules that cause events (payments, consents) and the one that
 * delivers them (webhooks), so neither depends on the other.
 */
@Injectable()
export class SandboxEvents {
  private readonly listeners: SandboxEventListener[] = [];

  subscribe(listener: SandboxEventListener): void {
    this.listeners.push(listener);
  }

  emit(event: SandboxEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
