/**
 * DCP's storage on a dsh host (docs/DSH-DCP.md §5): its own domains over dsh's storage-domain facility, or memory
 * (and `/dcp stats` says so) when the host has none.
 */
import { describe, expect, it } from 'vitest';
import type { DshDomainFacility, DshDomainSpec } from '../../src/dsh-dcp/dsh-dcp-host-shapes.js';
import { DshStorageSelector, MEMORY_SCOPE, dshDomainName } from '../../src/dsh-dcp/dsh-plugin-storage.js';

/** A facility like dsh's: one open per name, records parsed by the spec on open. */
function fakeFacility(): DshDomainFacility & { readonly opened: DshDomainSpec[]; readonly closed: string[]; failPut: boolean } {
  const open = new Set<string>();
  const stored = new Map<string, Map<string, unknown>>();
  const facility = {
    opened: [] as DshDomainSpec[],
    closed: [] as string[],
    failPut: false,
    async open(spec: DshDomainSpec) {
      if (open.has(spec.name)) throw new Error(`domain '${spec.name}' is already open`);
      open.add(spec.name);
      facility.opened.push(spec);
      const records = stored.get(spec.name) ?? new Map<string, unknown>();
      stored.set(spec.name, records);
      for (const [key, value] of records) records.set(key, spec.tables['records']!.valueSchema.parse(value));
      return {
        table: () => ({
          get: (key: string) => records.get(key),
          entries: () => records.entries(),
          put: async (key: string, value: unknown) => {
            if (facility.failPut) throw new Error('disk full');
            records.set(key, value);
          },
        }),
        close: async () => {
          open.delete(spec.name);
          facility.closed.push(spec.name);
        },
      };
    },
  };
  return facility;
}

describe('storage on dsh', () => {
  it("names its own domains: sessionctx_ plus the host-API name in dsh's alphabet", () => {
    expect(dshDomainName('dcp_stats')).toBe('sessionctx_dcp_stats');
    expect(dshDomainName('My.Domain-1')).toBe('sessionctx_my_domain_1');
  });

  it("opens the plugin's own domain through the facility: fresh copies, sorted listing, JSON only, closed means closed", async () => {
    const facility = fakeFacility();
    const selector = new DshStorageSelector(() => facility);
    expect(selector.persistent).toBe(true);
    const storage = selector.current();
    expect(storage.scope).toBeUndefined();
    const domain = await storage.open('dcp_stats', { version: 1 });
    expect(facility.opened.map((spec) => [spec.name, spec.version, Object.keys(spec.tables)])).toEqual([
      ['sessionctx_dcp_stats', 1, ['records']],
    ]);
    await domain.put('b', { v: 1, n: [1, 2] });
    await domain.put('a', { v: 1 });
    const read = (await domain.get('b')) as { n: number[] };
    read.n.push(3);
    expect(await domain.get('b')).toEqual({ v: 1, n: [1, 2] });
    expect((await domain.list()).map((entry) => entry.key)).toEqual(['a', 'b']);
    await expect(domain.put('c', { at: new Date(0) })).rejects.toMatchObject({ code: 'HOST_STORAGE_VALUE' });
    facility.failPut = true;
    await expect(domain.put('c', {})).rejects.toMatchObject({
      code: 'HOST_STORAGE_IO',
      message: 'storage domain sessionctx_dcp_stats v1: disk full',
    });
    await domain.close();
    await domain.close();
    expect(facility.closed).toEqual(['sessionctx_dcp_stats']);
    await expect(domain.get('a')).rejects.toMatchObject({ code: 'HOST_STORAGE_CLOSED' });
    await expect(storage.open('bad name', { version: 1 })).rejects.toMatchObject({ code: 'HOST_STORAGE_ARGUMENT' });
  });

  it('keeps one storage per facility while the host offers one (a fresh proxy per lookup opens nothing twice), memory otherwise', async () => {
    const facility = fakeFacility();
    let offered: unknown;
    const selector = new DshStorageSelector(() =>
      offered === undefined ? undefined : { open: (spec: DshDomainSpec) => facility.open(spec) },
    );
    const memory = selector.current();
    expect(selector.persistent).toBe(false);
    expect(memory.scope).toBe(MEMORY_SCOPE);
    await (await memory.open('dcp_stats', { version: 1 })).put('s', { v: 1 });
    offered = facility;
    const first = selector.current();
    expect(selector.current()).toBe(first);
    expect(first).not.toBe(memory);
    offered = undefined;
    expect(selector.current()).toBe(memory);
    expect(await (await memory.open('dcp_stats', { version: 1 })).get('s')).toEqual({ v: 1 });
  });
});
