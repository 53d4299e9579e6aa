/**
 * Compliance attestation report: validated plain data in, self-contained HTML out.
 * No I/O and no clock: the same input renders byte-identical HTML (and fingerprint).
 *
 * Fingerprint (docs/compliance-report.md "Fingerprint"): the SHA-256 (hex) of the
 * UTF-8 bytes of the HTML with every fingerprint slot empty. The slots are then filled
 * with that hex, so a reader recomputes it by deleting every occurrence of the hex
 * from the document and hashing the rest (`verifyReportFingerprint`).
 */
import { createHash } from 'node:crypto';
import nunjucks from 'nunjucks';
import {
  complianceReportInputSchema,
  renderOptionsSchema,
  type ComplianceReportInput,
  type RenderOptions,
} from './model';
import { MACROS_TEMPLATE, REPORT_TEMPLATE } from './templates/layout';
import { SECTION_TEMPLATES } from './templates/sections';
import { buildViewModel } from './view-model';

const TEMPLATES: Readonly<Record<string, string>> = {
  'macros.njk': MACROS_TEMPLATE,
  'report.njk': REPORT_TEMPLATE,
  ...SECTION_TEMPLATES,
};

/** In-memory loader: the templates are bundled strings, so there is no file system to watch. */
const memoryLoader: nunjucks.ILoader = {
  getSource(name: string): nunjucks.LoaderSource {
    const src = TEMPLATES[name];
    if (src === undefined) throw new Error(`Unknown report template: ${name}`);
    return { src, path: name, noCache: false };
  },
};

// Module scope: built and compiled once per Lambda container, reused by every request.
const environment = new nunjucks.Environment(memoryLoader, {
  autoescape: true,
  throwOnUndefined: true,
  trimBlocks: true,
  lstripBlocks: true,
});
for (const name of Object.keys(TEMPLATES)) environment.getTemplate(name, true);
const reportTemplate = environment.getTemplate('report.njk', true);

/**
 * Placeholder for the fingerprint while hashing. It starts with `<`, which autoescaping
 * turns into `&lt;` in any user-supplied value, so no data can forge a slot.
 */
const FINGERPRINT_SLOT = '<!--vexdesk:report-sha256-->';

export interface RenderedReport {
  html: string;
  /** Lower-case hex SHA-256 fingerprint, also embedded in the HTML. */
  sha256: string;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Renders the report. Throws a ZodError when the input does not match the model. */
export function renderComplianceReport(input: ComplianceReportInput, options: RenderOptions = {}): RenderedReport {
  const data = complianceReportInputSchema.parse(input);
  const resolved = renderOptionsSchema.parse(options);
  const { view } = buildViewModel(data, resolved);

  const withSlots = reportTemplate.render({
    ...view,
    // SafeString only for our own constant: it must reach the output unescaped to be a slot.
    fingerprint: new nunjucks.runtime.SafeString(FINGERPRINT_SLOT),
  });
  const parts = withSlots.split(FINGERPRINT_SLOT);
  const sha256 = sha256Hex(parts.join(''));
  return { html: parts.join(sha256), sha256 };
}

/**
 * Recomputes the fingerprint of a rendered report: reads it from the `report-sha256`
 * meta tag, removes every occurrence and hashes what remains.
 */
export function verifyReportFingerprint(html: string): {
  claimed: string | null;
  computed: string | null;
  valid: boolean;
} {
  const match = /<meta name="report-sha256" content="([0-9a-f]{64})">/.exec(html);
  const claimed = match?.[1] ?? null;
  if (claimed === null) return { claimed: null, computed: null, valid: false };
  const computed = sha256Hex(html.split(claimed).join(''));
  return { claimed, computed, valid: computed === claimed };
}
