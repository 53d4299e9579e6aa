/**
 * The drafts of the three Article 14 reports, from what Vexdesk knows (docs/cra-reporting.md "Drafts"):
 * facts the data gives, free-text fields prefilled from them that a person finishes (their edits win),
 * and the same as Markdown to paste into the single reporting platform. A draft, not a submission.
 */
import { Dispositions } from '../dispositions/dispositions';
import { TeamSettingsService } from '../identity/team-settings';
import { productStore } from '../products/product-store';
import { CRA_DRAFT_FIELDS, type CraReportView } from '../schemas/cra';
import { vexStore } from '../vex/vex-store';
import type { CraCase } from './case-store';
import type { CraStage } from './rules';
import { deadlinesOfCase, disclosureUrl } from './views';

const ARTICLE: Record<CraStage, string> = {
  early_warning: 'Art. 14(2)(a) early warning (within 24 hours of becoming aware)',
  notification: 'Art. 14(2)(b) vulnerability notification (within 72 hours of becoming aware)',
  final_report: 'Art. 14(2)(c) final report (within 14 days after a corrective or mitigating measure is available)',
};

const TITLE: Record<CraStage, string> = {
  early_warning: 'Early warning',
  notification: 'Vulnerability notification',
  final_report: 'Final report',
};

async function decisionsOf(craCase: CraCase) {
  const lists = await Promise.all(
    craCase.affected.map((affected) =>
      Dispositions.listByRelease(craCase.teamId, craCase.productId, affected.releaseId),
    ),
  );
  return lists
    .flat()
    .filter((disposition) => craCase.advisoryIds.includes(disposition.advisoryId))
    .map((disposition) => ({
      status: disposition.status,
      response: disposition.response,
      detail: disposition.detail,
      action_statement: disposition.actionStatement,
    }));
}

async function disclosuresOf(craCase: CraCase) {
  const releaseIds = [...new Set([...craCase.affected.map((a) => a.releaseId), craCase.fix?.releaseId ?? ''])];
  const documents = await Promise.all(
    releaseIds
      .filter((id) => id !== '')
      .map((releaseId) => vexStore.listByRelease(craCase.teamId, craCase.productId, releaseId)),
  );
  // The advisories drafted from the case first: they are what informed users (Art. 14(8)).
  return documents
    .flat()
    .filter((document) => document.publishedAt !== null && document.disclosure !== null)
    .map((document) => ({
      published_at: document.publishedAt,
      url: disclosureUrl(document.disclosure?.slug ?? ''),
      drafted_from_case: document.craCaseId === craCase.id,
    }))
    .sort((a, b) => Number(b.drafted_from_case) - Number(a.drafted_from_case));
}

async function factsOf(craCase: CraCase, stage: CraStage): Promise<Record<string, unknown>> {
  const [settings, product] = await Promise.all([
    TeamSettingsService.get(craCase.teamId),
    productStore.find(craCase.teamId, craCase.productId),
  ]);
  const { exploitation } = craCase;
  const common = {
    manufacturer: {
      name: settings.cra.manufacturerName || null,
      contact: settings.cra.contact || null,
      main_establishment: settings.cra.mainEstablishment,
    },
    product: { name: craCase.productName, vendor: product?.vendor ?? null },
    affected_versions: craCase.affected.map((affected) => affected.version),
    vulnerability: { id: craCase.vulnerabilityId, aliases: craCase.aliases, advisory_ids: craCase.advisoryIds },
    member_states: settings.cra.memberStates,
    aware_at: craCase.awareAt,
    actively_exploited: {
      source: exploitation.source,
      kev_date_added: exploitation.kevDateAdded,
      kev_added_at: exploitation.kevAddedAt,
      evidence_url: exploitation.evidenceUrl,
    },
  };
  if (stage === 'early_warning') return { ...common, malicious_use_suspected: true };
  const fixedVersions = [...new Set(craCase.affected.flatMap((affected) => affected.fixedVersions))];
  const fix = craCase.fix && {
    available_at: craCase.fix.availableAt,
    release: craCase.fix.version,
    measure: craCase.fix.measure,
  };
  if (stage === 'notification')
    return {
      ...common,
      product: { ...common.product, description: product?.description ?? null, website: product?.websiteUrl ?? null },
      summary: craCase.summary,
      cwes: craCase.cwes,
      cvss: craCase.cvss,
      severity: craCase.severity,
      known_ransomware_campaign_use: exploitation.knownRansomwareCampaignUse,
      fixed_versions: fixedVersions,
      fix,
      decisions: await decisionsOf(craCase),
    };
  return {
    ...common,
    summary: craCase.summary,
    severity: craCase.severity,
    cvss: craCase.cvss,
    cwes: craCase.cwes,
    known_ransomware_campaign_use: exploitation.knownRansomwareCampaignUse,
    fixed_versions: fixedVersions,
    security_update: fix,
    users_informed_at: craCase.usersInformed?.informedAt ?? null,
    users_informed: await disclosuresOf(craCase),
  };
}

/** Whether and where users were informed: the case's published advisory, else the releases' other disclosures. */
function usersInformedText(craCase: CraCase, facts: Record<string, unknown>): string {
  const links = (facts.users_informed as { url: string; drafted_from_case: boolean }[] | undefined) ?? [];
  const informedAt = craCase.usersInformed?.informedAt ?? null;
  const fromCase = links.filter((link) => link.drafted_from_case).map((link) => link.url);
  if (informedAt !== null && fromCase.length > 0)
    return `Users were informed on ${informedAt} by the CSAF advisory published at ${fromCase.join(', ')}.`;
  if (links.length > 0) return `Published disclosures of the affected releases: ${links.map((l) => l.url).join(', ')}.`;
  return 'Not yet: draft the CSAF advisory from the case (inform users) and publish it.';
}

/** Free-text fields prefilled from the facts; a person's edits replace them field by field. */
function prefilled(craCase: CraCase, stage: CraStage, facts: Record<string, unknown>): Record<string, string> {
  const versions = craCase.affected.map((affected) => affected.version).join(', ');
  const ids = [craCase.vulnerabilityId, ...craCase.aliases].join(', ');
  const exploited =
    craCase.exploitation.source === 'kev'
      ? `listed in the CISA Known Exploited Vulnerabilities catalog on ${craCase.exploitation.kevDateAdded ?? 'unknown date'}`
      : `reported as actively exploited: ${craCase.exploitation.reason ?? ''}`;
  const fixedVersions = (facts.fixed_versions as string[] | undefined)?.join(', ') || 'none known yet';
  const cvss = craCase.cvss
    ? `CVSS ${craCase.cvss.version} ${craCase.cvss.score} (${craCase.cvss.vector})`
    : 'no CVSS score';
  switch (stage) {
    case 'early_warning':
      return {
        summary: `${ids} in ${craCase.productName} ${versions} is actively exploited (${exploited}).`,
        malicious_use: 'Malicious use is suspected: the vulnerability is known to be exploited in the wild.',
      };
    case 'notification':
      return {
        exploit_nature: `Actively exploited; ${exploited}. Known ransomware campaign use: ${craCase.exploitation.knownRansomwareCampaignUse ?? 'unknown'}.`,
        vulnerability_nature: `${craCase.summary} (${craCase.cwes.join(', ') || 'no CWE'}; ${cvss}; severity ${craCase.severity}).`,
        corrective_measures: craCase.fix?.measure ?? 'Under investigation.',
        user_measures: `Update to a fixed version (${fixedVersions}).`,
        sensitivity: 'TLP:AMBER until a fix is available to users.',
      };
    case 'final_report':
      return {
        description: `${ids}: ${craCase.summary}`,
        severity_and_impact: `Severity ${craCase.severity}, ${cvss}. Affected versions: ${versions}.`,
        malicious_actor: `Known ransomware campaign use: ${craCase.exploitation.knownRansomwareCampaignUse ?? 'unknown'}.`,
        security_update: craCase.fix
          ? `${craCase.fix.measure ?? ''} (available since ${craCase.fix.availableAt})`.trim()
          : 'No security update recorded yet.',
        users_informed: usersInformedText(craCase, facts),
      };
  }
}

function markdownOf(
  craCase: CraCase,
  stage: CraStage,
  due: string | null,
  facts: object,
  fields: Record<string, string>,
) {
  const lines = [
    `# ${TITLE[stage]}: ${craCase.vulnerabilityId} in ${craCase.productName}`,
    '',
    `_${ARTICLE[stage]}. Drafted by Vexdesk from its data; a person reviews and submits it. Not legal advice._`,
    '',
    `- **Due:** ${due ?? 'when a corrective or mitigating measure is available, plus 14 days'}`,
    `- **Aware since:** ${craCase.awareAt}`,
    `- **Affected versions:** ${craCase.affected.map((affected) => affected.version).join(', ')}`,
    `- **Vulnerability:** ${[craCase.vulnerabilityId, ...craCase.aliases].join(', ')}`,
    '',
  ];
  for (const field of CRA_DRAFT_FIELDS[stage]) {
    const value = fields[field];
    if (value === undefined || value === '') continue;
    lines.push(`## ${field.replace(/_/g, ' ')}`, '', value, '');
  }
  lines.push('## Facts', '', '```json', JSON.stringify(facts, null, 2), '```', '');
  return lines.join('\n');
}

export async function draftReport(craCase: CraCase, stage: CraStage): Promise<CraReportView> {
  const facts = await factsOf(craCase, stage);
  const draft = craCase.drafts[stage];
  const fields = { ...prefilled(craCase, stage, facts), ...(draft?.fields ?? {}) };
  const due = deadlinesOfCase(craCase)[stage];
  return {
    case_id: craCase.id,
    stage,
    article: ARTICLE[stage],
    due,
    draft_version: draft?.version ?? 0,
    facts,
    fields,
    markdown: markdownOf(craCase, stage, due, facts, fields),
  };
}
