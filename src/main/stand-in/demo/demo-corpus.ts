/**
 * The demo corpus: a handful of realistic sessions over three projects, written with this
 * project's own store in dsh's default format (zstd), so every command can be tried on it.
 */
import { JsonlSessionStore } from '../../engine/store/jsonl-store.js';
import { DemoSessionBuilder } from './demo-session-builder.js';

/** Ids of the demo sessions, for the walkthrough. */
export const DEMO_IDS = {
  checkout: 'session-demo-checkout-409',
  discounts: 'session-demo-discount-codes',
  training: 'session-demo-training-oom',
  infra: 'session-demo-multi-az',
  raft: 'session-demo-raft-notes',
  target: 'session-demo-new-conversation',
} as const;

/** The working directories of the demo projects. */
export const DEMO_CWDS = {
  webshop: '/home/demo/projects/webshop',
  ml: '/home/demo/projects/ml-pipeline',
  infra: '/srv/demo/infra',
} as const;

const DAY = 86_400_000;

function checkoutSession(createdAt: number): DemoSessionBuilder {
  return new DemoSessionBuilder(DemoSessionBuilder.header(DEMO_IDS.checkout, createdAt, DEMO_CWDS.webshop), createdAt)
    .turnWith(
      'Checkout should return 409 when the cart changed since the user opened the payment page. Right now it charges the old total.',
      [
        {
          answer: 'Let me look at the checkout handler and the cart model first.',
          calls: [
            {
              name: 'read_file',
              args: { path: 'src/checkout/handler.ts' },
              result:
                'export async function checkout(req) {\n  const cart = await carts.get(req.cartId);\n  return payments.charge(cart.total);\n}',
            },
            {
              name: 'read_file',
              args: { path: 'src/cart/model.ts' },
              result: 'export interface Cart { id: string; items: Item[]; total: number; version: number }',
            },
          ],
        },
        {
          answer:
            'The handler never compares the cart version the client saw with the current one. I added an `expectedVersion` field to the request and a guard that returns **409 Conflict** with the new total when they differ, before any charge is attempted.',
          calls: [{ name: 'edit_file', args: { path: 'src/checkout/handler.ts' }, result: 'applied 1 edit' }],
        },
        {
          answer:
            'Done: stale carts now get a 409 with `{currentVersion, currentTotal}` and the client re-renders the payment page. Tests cover both the stale and the fresh path.',
        },
      ],
    )
    .title('Make checkout return 409 when cart changed')
    .turnWith('Also log the conflict with the cart id so support can see it.', [
      { answer: 'Added a `checkout.conflict` log line with `cartId`, `expectedVersion` and `currentVersion`; no personal data is logged.' },
    ]);
}

function discountSession(createdAt: number): DemoSessionBuilder {
  const builder = new DemoSessionBuilder(DemoSessionBuilder.header(DEMO_IDS.discounts, createdAt, DEMO_CWDS.webshop), createdAt)
    .turnWith('Add a migration for a discount_codes table: code (unique), percent, expires_at, max_uses.', [
      {
        answer: 'I will add the migration and a model.',
        calls: [{ name: 'write_file', args: { path: 'migrations/0042_discount_codes.sql' }, result: 'created' }],
      },
      { answer: 'Created `0042_discount_codes.sql` with a unique index on `code` and a check constraint `percent BETWEEN 1 AND 100`.' },
    ])
    .title('Add migration for discount_codes table')
    .turnWith('Run the migration tests.', [
      { answer: 'Running them now.', calls: [{ name: 'run', args: { command: 'npm test -- migrations' }, result: '12 passed' }] },
      { answer: 'All 12 migration tests pass, including the rollback.' },
    ]);
  return builder
    .compactAll(
      '## Primary request\n- discount_codes table with code, percent, expires_at, max_uses\n\n## Done\n- migration 0042 with unique code index and percent check\n- migration tests pass (12)\n\n## Next\n- wire discount codes into checkout totals',
    )
    .turnWith('Now apply discount codes in the checkout total.', [
      { answer: 'Checkout now looks up the code, rejects expired or exhausted codes with 422, and applies the percentage before tax.' },
    ]);
}

function trainingSession(createdAt: number): DemoSessionBuilder {
  const builder = new DemoSessionBuilder(DemoSessionBuilder.header(DEMO_IDS.training, createdAt, DEMO_CWDS.ml), createdAt);
  builder.turnWith('The nightly training job is killed after epoch 3. Find out why it runs out of memory.', [
    {
      answer: 'Checking the data loader and the feature cache.',
      calls: [
        {
          name: 'read_file',
          args: { path: 'pipeline/dataset.py' },
          result: 'class FeatureCache:\n    def __init__(self):\n        self.items = {}',
        },
      ],
    },
    {
      answer:
        "The feature cache keeps every epoch's tensors: `FeatureCache.items` is never cleared, so memory grows by one epoch each time.",
    },
  ]);
  builder.title('Nightly training job OOM');
  // A long investigation, so that a small budget visibly truncates it.
  for (let round = 1; round <= 40; round += 1) {
    builder.turnWith(
      `Round ${round}: measure peak memory with batch size ${16 * round} and the cache ${round % 2 === 0 ? 'enabled' : 'disabled'}.`,
      [
        {
          answer:
            `Round ${round}: peak RSS ${(3.1 + round * 0.4).toFixed(1)} GiB with the cache ${round % 2 === 0 ? 'enabled' : 'disabled'}. ` +
            'The growth is linear in epochs while the cache is on and flat without it, which confirms the leak is the cache and not the batch size. '.repeat(
              3,
            ),
        },
      ],
    );
  }
  return builder.turnWith('Fix it, and write up what we found for the team.', [
    {
      answer: [
        'Fixed. `FeatureCache` is now an LRU bounded to one epoch (`maxsize=len(train_split)`), so tensors from earlier epochs are released.',
        'Peak RSS is flat at 3.4 GiB over 20 epochs (it was growing by about 0.4 GiB per epoch and hit the 8 GiB limit after epoch 3).',
        'Write-up for the team:',
        '1. Symptom: the nightly job was killed by the OOM killer after epoch 3, with no Python traceback.',
        '2. Cause: the feature cache keyed tensors by (epoch, index), so nothing was ever evicted.',
        '3. Evidence: 40 measurement rounds; memory grew linearly with epochs when the cache was on and stayed flat when it was off, at every batch size.',
        '4. Fix: bound the cache to one epoch and key it by index only; added a regression test that trains 5 tiny epochs and asserts the cache size.',
        '5. Follow-up: add a memory budget alarm to the nightly job so the next leak pages us before the kill.',
      ].join('\n'),
    },
  ]);
}

function infraSession(createdAt: number): DemoSessionBuilder {
  return new DemoSessionBuilder(DemoSessionBuilder.header(DEMO_IDS.infra, createdAt, DEMO_CWDS.infra), createdAt)
    .turnWith('Enable multi-AZ for the orders database and keep 14 days of backups.', [
      {
        answer: 'Updating the Terraform module.',
        calls: [{ name: 'edit_file', args: { path: 'modules/db/main.tf' }, result: 'applied 2 edits' }],
      },
      {
        answer:
          'Set `multi_az = true` and `backup_retention_period = 14`; `terraform plan` shows an in-place update with a short failover.',
      },
    ])
    .title('Enable multi-AZ and 14-day backups');
}

function raftSession(createdAt: number): DemoSessionBuilder {
  return new DemoSessionBuilder(DemoSessionBuilder.header(DEMO_IDS.raft, createdAt), createdAt)
    .turnWith('How does Raft leader election avoid split votes?', [
      {
        answer:
          'Each follower waits a randomized election timeout (e.g. 150–300 ms) before becoming a candidate, so usually one node times out first, collects a majority and becomes leader before the others start.',
      },
    ])
    .title('How does Raft leader election work', { kind: 'user' });
}

/**
 * Writes the demo corpus under `root` (dsh's zstd format) and returns the store. The sessions
 * are written in batches, as a harness would append them.
 */
export async function writeDemoCorpus(root: string, now = Date.now()): Promise<JsonlSessionStore> {
  const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
  const builders = [
    trainingSession(now - 9 * DAY),
    infraSession(now - 6 * DAY),
    discountSession(now - 4 * DAY),
    raftSession(now - 2 * DAY),
    checkoutSession(now - 1 * DAY),
  ];
  for (const builder of builders) {
    const { header, events } = builder;
    const batch = 40;
    // One writer (and its lock) per session while its batches are written (SESSION-LOG.md §9.16 rule 4).
    const writer = await store.createWriter(header, events.slice(0, batch));
    try {
      for (let at = batch; at < events.length; at += batch) await writer.append(events.slice(at, at + batch));
    } finally {
      await writer.release();
    }
  }
  return store;
}
