import { describe, expect, it } from '@jest/globals';
import type { ComplianceReportInput } from '../../shared/service/compliance/model';
import { renderComplianceReport } from '../../shared/service/compliance/report';

const ATTACK = `<script>alert(1)</script>"><img src=x onerror=alert(1)>{{ 7*7 }}'`;
const ESCAPED_ATTACK =
  '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;{{ 7*7 }}&#39;';

/** Each user-typed field carries its own name and the attack, so a leak is traceable to the field. */
const evil = (field: string) => `[${field}]${ATTACK}`;

const DETECTED = '2025-06-01T00:00:00.000Z';

function hostileInput(): ComplianceReportInput {
  return {
    team: { id: evil('team.id'), name: evil('team.name') },
    product: {
      id: evil('product.id'),
      name: evil('product.name'),
      slug: evil('product.slug'),
      vendor: evil('product.vendor'),
      description: evil('product.description'),
      websiteUrl: evil('product.websiteUrl'),
      repositoryUrl: evil('product.repositoryUrl'),
    },
    release: { id: evil('release.id'), version: evil('release.version'), name: evil('release.name') },
    sboms: [
      {
        id: evil('sbom.id'),
        format: evil('sbom.format'),
        specVersion: evil('sbom.specVersion'),
        toolName: evil('sbom.toolName'),
        fileHash: evil('sbom.fileHash'),
        uploadedAt: DETECTED,
        fileName: evil('sbom.fileName'),
        componentCount: 2,
        scannedAt: DETECTED,
      },
    ],
    components: [
      {
        name: evil('component.name'),
        version: evil('component.version'),
        purl: evil('component.purl'),
        licenses: [evil('component.license')],
      },
      { name: 'zz-second', version: '1.0.0', purl: null, licenses: [] },
    ],
    findings: [
      {
        id: evil('finding.id'),
        cveId: evil('finding.cveId'),
        componentName: evil('finding.componentName'),
        componentVersion: evil('finding.componentVersion'),
        severity: 'critical',
        isKev: true,
        firstDetectedAt: DETECTED,
        disposition: {
          status: 'not_affected',
          justification: 'component_not_present',
          updatedAt: DETECTED,
          detail: evil('disposition.detail'),
        },
      },
    ],
    vexDocuments: [
      {
        id: evil('vex.id'),
        format: 'csaf',
        workflowStatus: 'published',
        version: 1,
        author: evil('vex.author'),
        approvals: [
          {
            action: evil('approval.action'),
            actorName: evil('approval.actorName'),
            comment: evil('approval.comment'),
            createdAt: DETECTED,
          },
        ],
        disclosure: {
          publicSlug: evil('disclosure.publicSlug'),
          url: evil('disclosure.url'),
          verifyUrl: `javascript:alert(1)//${ATTACK}`,
          contentHash: evil('disclosure.contentHash'),
          publishedAt: DETECTED,
          signed: false,
        },
      },
    ],
    slaPolicy: null,
    generatedAt: '2025-06-02T00:00:00.000Z',
    baseUrl: `https://vexdesk.example.com/${ATTACK}`,
  };
}

/** Fields rendered as text (ids are not shown; URLs are resolved and percent-encoded when valid). */
const DISPLAYED_FIELDS = [
  'team.name',
  'product.name',
  'product.slug',
  'product.vendor',
  'product.description',
  'product.websiteUrl',
  'product.repositoryUrl',
  'release.version',
  'release.name',
  'sbom.format',
  'sbom.specVersion',
  'sbom.toolName',
  'sbom.fileHash',
  'sbom.fileName',
  'component.name',
  'component.version',
  'component.purl',
  'component.license',
  'finding.cveId',
  'finding.componentName',
  'finding.componentVersion',
  'disposition.detail',
  'vex.id',
  'vex.author',
  'approval.action',
  'approval.actorName',
  'approval.comment',
  'disclosure.publicSlug',
  'disclosure.contentHash',
];

const ALLOWED_TAGS = new Set([
  '!doctype',
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'header',
  'main',
  'footer',
  'section',
  'div',
  'span',
  'strong',
  'h1',
  'h2',
  'h3',
  'h4',
  'p',
  'dl',
  'dt',
  'dd',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'ul',
  'li',
  'a',
  'br',
]);
const ALLOWED_ATTRIBUTES = new Set([
  'lang',
  'charset',
  'http-equiv',
  'content',
  'name',
  'class',
  'id',
  'href',
  'style',
]);

function renderBoth(): string[] {
  const input = hostileInput();
  return [renderComplianceReport(input).html, renderComplianceReport(input, { maxComponentRows: 1 }).html];
}

describe('compliance report escaping', () => {
  const [full, truncated] = renderBoth() as [string, string];

  it.each([
    ['full', full],
    ['truncated inventory', truncated],
  ])('contains no injected markup (%s)', (_label, html) => {
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('"><img');
    expect(html).not.toContain(ATTACK);
    expect(html).not.toMatch(/href="(?!https?:\/\/)/);
    expect(html).not.toMatch(/\]49'/); // `{{ 7*7 }}` must not have been evaluated
  });

  it('emits only the tags and attributes of the template', () => {
    const withoutStyle = full.replace(/<style>[\s\S]*?<\/style>/, '<style></style>');
    const tags = new Set<string>();
    const attributeNames = new Set<string>();
    // Attribute values are quoted and cannot contain `"` (escaped), so this tokenizer is exact for our output.
    for (const [, tag, attributes] of withoutStyle.matchAll(
      /<(!?[a-zA-Z0-9-]+)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*>/g,
    )) {
      tags.add(tag!.toLowerCase());
      if (tag === '!DOCTYPE') continue;
      for (const [, attribute] of attributes!.matchAll(/\s+([a-zA-Z-]+)(?:="[^"]*")?/g))
        attributeNames.add(attribute!.toLowerCase());
    }
    expect([...tags].filter((tag) => !ALLOWED_TAGS.has(tag))).toEqual([]);
    expect([...attributeNames].filter((name) => !ALLOWED_ATTRIBUTES.has(name))).toEqual([]);
    // Every `<` left in the document opens one of those tags (or closes one): nothing else is markup.
    const opened = withoutStyle.match(/<(?!\/)/g)?.length ?? 0;
    const closing = withoutStyle.match(/<\//g)?.length ?? 0;
    const tokenised = [...withoutStyle.matchAll(/<(!?[a-zA-Z0-9-]+)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*>/g)].length;
    expect(opened).toBe(tokenised);
    expect(closing).toBe(withoutStyle.match(/<\/[a-z0-9]+>/g)?.length ?? 0);
  });

  it.each(DISPLAYED_FIELDS)('shows %s as escaped text', (field) => {
    expect(full).toContain(`[${field}]${ESCAPED_ATTACK}`);
  });

  it('shows the SBOM id and base URL escaped in the truncation note', () => {
    // The id is a path segment, so it is percent-encoded (then escaped) rather than shown raw.
    expect(truncated).toContain(
      `/api/sboms/${encodeURIComponent(`[sbom.id]${ATTACK}`).replaceAll("'", '&#39;')}/download`,
    );
    expect(truncated).toContain(`https://vexdesk.example.com/${ESCAPED_ATTACK}`);
  });

  it('keeps template syntax in data as literal text', () => {
    expect(full).toContain('{{ 7*7 }}');
  });

  it('does not link a javascript: URL', () => {
    expect(full).not.toContain('javascript:alert(1)//<');
    expect(full).toContain('javascript:alert(1)//&lt;script&gt;');
    expect(full).not.toMatch(/href="javascript:/i);
  });
});
