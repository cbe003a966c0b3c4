/**
 * System-prompt sections and the request header (HOST.md §8).
 */
import type { RequestHeaderRecord } from '../../../protocol/event-map.js';
import type { ToolDescriptor } from './model-client.js';
import type { SystemSection } from '../../host-api/host-api.js';

/** The `request/header` header record (SESSION-LOG.md §3.6), keys in writer order. */
export interface RequestHeader extends RequestHeaderRecord {
  readonly config: { readonly provider: string; readonly model: string };
  readonly system: string;
  readonly tools: readonly ToolDescriptor[];
}

/** Code-unit order of two names; locale-independent so every host renders the same prompt. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The registered sections of one agent. */
export class SystemSections {
  readonly #sections: SystemSection[] = [];

  /** Adds a section. */
  register(section: SystemSection): void {
    this.#sections.push(section);
  }

  /** The non-empty `render()` outputs sorted by `(order, name)` and joined by a blank line. */
  render(): string {
    return [...this.#sections]
      .sort((a, b) => a.order - b.order || compareNames(a.name, b.name))
      .map((section) => section.render())
      .filter((text) => text !== '')
      .join('\n\n');
  }
}

/** The header of a request: config `{provider, model}`, the system text, and the tools in registration order. */
export function composeRequestHeader(provider: string, model: string, system: string, tools: readonly ToolDescriptor[]): RequestHeader {
  return {
    config: { provider, model },
    system,
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
  };
}
