/**
 * The two package entries (issue 14, item 3): `sessionctx/host` carries the stand-in host, its storage and the test
 * harness; the main entry `sessionctx` carries the engine and only the host API's types, never a host class.
 */
import { describe, expect, it } from 'vitest';
import * as hostEntry from '../../src/main/host-entry.js';
import * as mainEntry from '../../src/main/index.js';

const STAND_IN_HOST = [
  'Session',
  'SessionAppendError',
  'Agent',
  'createPluginContext',
  'silentLogger',
  'ScriptedModel',
  'createTestHarness',
  'HARNESS_EPOCH_MS',
  'MemoryStorage',
  'JsonFileStorage',
  'PluginStorageError',
];

describe('package entries', () => {
  it('sessionctx/host exports the stand-in host, its plugin storage and the test harness', () => {
    for (const name of STAND_IN_HOST) expect(hostEntry, name).toHaveProperty(name);
    const storage = new hostEntry.MemoryStorage();
    expect(typeof storage.open).toBe('function');
  });

  it('the main entry exports none of the stand-in host', () => {
    for (const name of STAND_IN_HOST) expect(Object.hasOwn(mainEntry, name), name).toBe(false);
  });
});
