import * as z from 'zod';
import { dataEnvelope } from './common';

/** One feed of the scheduled corpus refresh (docs/watch.md "Feeds"). */
export const corpusFeedStatusSchema = z
  .object({
    source: z.enum(['osv', 'kev', 'epss']),
    ecosystem: z.string().optional().meta({ description: 'OSV only: the ecosystem, spelled as OSV spells it' }),
    last_success_at: z.string().nullable().meta({
      description: 'When a refresh of this feed last succeeded; null: never yet',
    }),
    last_attempt_at: z.string().nullable().meta({ description: 'When a refresh of this feed was last tried' }),
    last_error: z.string().optional().meta({
      description:
        'Why the last attempt failed; absent when it succeeded. The feed keeps its data and mark until a run succeeds',
    }),
    records: z.number().int().optional().meta({
      description:
        'Records the last successful run took in: changed OSV records (all of them after a full download), KEV entries, EPSS rows',
    }),
  })
  .meta({ id: 'CorpusFeedStatus' });

export const corpusStatusSchema = z
  .object({
    sources: z.array(corpusFeedStatusSchema).meta({
      description: 'Every feed the refresh has tried at least once: OSV per ecosystem, then KEV and EPSS',
    }),
    corpus_version: z.string().nullable().meta({
      description:
        "The latest recorded corpus change (an SBOM's scan shows the version its findings reflect); null before the first",
    }),
  })
  .meta({ id: 'CorpusStatus' });
export type CorpusStatusView = z.infer<typeof corpusStatusSchema>;

export const corpusStatusResponse = dataEnvelope(corpusStatusSchema, 'CorpusStatusResponse');
