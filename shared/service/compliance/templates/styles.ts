/**
 * Stylesheet of the report, inlined in the document (no external fetches).
 *
 * Print model: A4 with margins; rows never split across pages; table headers repeat on
 * every page (`table-header-group`). The running header uses CSS Paged Media
 * (`position: running()` + `element()`) where supported (WeasyPrint, Prince, Paged.js);
 * Chromium ignores that declaration and keeps `position: fixed`, which it prints on
 * every page; `box-decoration-break: clone` repeats the body's top padding on each page
 * so the fixed header does not cover content. Page numbers use @page margin boxes
 * (Chromium 131+, paged-media engines). Status badges differ by glyph and border style,
 * not only by colour, so they stay readable in black and white.
 */
export const REPORT_CSS = `
:root {
  --ink: #111827; --muted: #4b5563; --rule: #d1d5db; --rule-strong: #6b7280; --paper: #ffffff; --shade: #f3f4f6;
  --met: #14532d; --met-bg: #dcfce7; --partial: #713f12; --partial-bg: #fef3c7;
  --bad: #ffffff; --bad-bg: #991b1b; --manual: #1e3a8a; --manual-bg: #e0e7ff;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; background: var(--paper); color: var(--ink); font: 10pt/1.45 "Helvetica Neue", Helvetica, Arial, "Liberation Sans", system-ui, sans-serif; }
.report-body { max-width: 190mm; margin: 0 auto; padding: 8mm 0 12mm; }
h1 { font-size: 20pt; line-height: 1.2; margin: 0 0 2mm; }
h2 { font-size: 14pt; margin: 9mm 0 3mm; padding-bottom: 1.5mm; border-bottom: 1.5pt solid var(--ink); }
h3 { font-size: 11pt; margin: 6mm 0 2mm; }
h4 { font-size: 10pt; margin: 4mm 0 1.5mm; }
h2, h3, h4 { break-after: avoid; page-break-after: avoid; }
/* A heading's intro sentence stays with the table it introduces instead of ending a page alone. */
h2 + p, h3 + p, h4 + p { break-after: avoid; page-break-after: avoid; }
p { margin: 0 0 2.5mm; }
.muted { color: var(--muted); }
.small { font-size: 8pt; }
.mono, code { font-family: var(--mono); font-size: 0.9em; overflow-wrap: anywhere; }
a { color: inherit; text-decoration: underline; overflow-wrap: anywhere; }
.nowrap { white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; }

.running-header { display: flex; gap: 4mm; justify-content: space-between; align-items: baseline; padding: 2mm 4mm; border-bottom: 0.75pt solid var(--rule-strong); font-size: 7.5pt; color: var(--muted); background: var(--paper); }
.running-header .rh-title { color: var(--ink); font-weight: 600; overflow-wrap: anywhere; }
.running-header .rh-fp { font-family: var(--mono); font-size: 6.5pt; }

.cover { border: 1pt solid var(--ink); padding: 6mm; margin-bottom: 6mm; }
.cover .kicker { text-transform: uppercase; letter-spacing: 0.08em; font-size: 8pt; color: var(--muted); margin-bottom: 1mm; }
.meta-grid { display: grid; grid-template-columns: 38mm 1fr; gap: 1mm 4mm; margin: 3mm 0 0; }
.meta-grid dt { font-weight: 600; color: var(--muted); }
.meta-grid dd { margin: 0; overflow-wrap: anywhere; }
.kpis { display: grid; grid-template-columns: repeat(4, 1fr); gap: 2mm; margin: 4mm 0; }
.kpi { border: 0.75pt solid var(--rule-strong); padding: 2mm 3mm; break-inside: avoid; }
.kpi .value { font-size: 15pt; font-weight: 700; display: block; }
.kpi .label { font-size: 7.5pt; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; }
.note { border-left: 2pt solid var(--rule-strong); padding: 1.5mm 3mm; background: var(--shade); margin: 2mm 0 3mm; font-size: 8.5pt; break-inside: avoid; }
.note.warn { border-left: 3pt double var(--ink); }
.description { white-space: pre-wrap; overflow-wrap: anywhere; }

table { width: 100%; border-collapse: collapse; margin: 1mm 0 4mm; font-size: 8.5pt; }
thead { display: table-header-group; }
tfoot { display: table-footer-group; }
tr, .keep { break-inside: avoid; page-break-inside: avoid; }
th, td { border-bottom: 0.5pt solid var(--rule); padding: 1mm 1.5mm; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { font-size: 7.5pt; text-transform: uppercase; letter-spacing: 0.03em; color: var(--muted); border-bottom: 1pt solid var(--ink); background: var(--shade); }
/* Header words and numbers never split: with "anywhere", auto table layout shrinks a column to one character and prints "PERCENTIL E" or "1 0". */
th, td.num { overflow-wrap: normal; }
/* Fixed layout: every assessment table lines up, whatever its references and badges contain. */
table.assessments { table-layout: fixed; }
/* "Manual attestation required" is ~50 mm on one line; in the status column it wraps instead of leaving the page. */
table.assessments .badge { white-space: normal; }
tfoot td { font-weight: 700; border-top: 1pt solid var(--ink); }
table.compact { font-size: 7pt; }
table.compact td, table.compact th { padding: 0.5mm 1.2mm; }
/* Inside 7 pt tables "small" text must stay smaller than the row, not grow to 8 pt. */
table.compact .small { font-size: 6.5pt; }
/* The KEV due date may go under the KEV flag: a narrow CVE column leaves room for component names. */
td.cve .small { white-space: nowrap; }
tr.kev td:first-child { border-left: 2.5pt solid var(--ink); }
.detail { display: block; margin-top: 0.5mm; color: var(--muted); white-space: pre-wrap; }

.badge { display: inline-block; padding: 0 1.5mm; border: 0.75pt solid currentColor; border-radius: 1mm; font-size: 7pt; font-weight: 700; letter-spacing: 0.03em; text-transform: uppercase; white-space: nowrap; line-height: 1.6; }
.badge::before { margin-right: 1mm; font-weight: 400; }
.st-met { color: var(--met); background: var(--met-bg); border-style: solid; }
.st-met::before { content: "\\2713"; }
.st-partial { color: var(--partial); background: var(--partial-bg); border-style: dashed; }
.st-partial::before { content: "\\25D0"; }
.st-not_evidenced, .st-breached { color: var(--bad); background: var(--bad-bg); border: 1.5pt double var(--ink); }
.st-not_evidenced::before, .st-breached::before { content: "\\2717"; }
.st-manual { color: var(--manual); background: var(--manual-bg); border-style: dotted; }
.st-manual::before { content: "\\270E"; }
.st-at_risk { color: var(--partial); background: var(--partial-bg); border-style: dashed; }
.st-at_risk::before { content: "!"; font-weight: 700; }
.st-open_within { color: var(--ink); background: var(--paper); border-style: dotted; }
.st-open_within::before { content: "\\25CB"; }
.sev-critical { color: var(--bad); background: var(--bad-bg); border: 1.5pt double var(--ink); }
.sev-high { color: var(--ink); background: var(--partial-bg); border-width: 1.25pt; }
.sev-medium { color: var(--ink); border-style: dashed; }
.sev-low, .sev-none { color: var(--muted); border-style: dotted; }
.kev-flag { font-weight: 700; border: 1pt solid var(--ink); padding: 0 1mm; font-size: 7pt; }

.req-title { font-weight: 600; }
.evidence { margin: 0.5mm 0 0; padding-left: 4mm; }
.evidence li { margin: 0; }
.signoff { white-space: nowrap; color: var(--muted); font-size: 7.5pt; }
.signoff .line { display: inline-block; min-width: 28mm; border-bottom: 0.75pt solid var(--ink); height: 3.5mm; vertical-align: bottom; }
.signature-block { display: grid; grid-template-columns: 1fr 1fr; gap: 8mm 10mm; margin-top: 6mm; break-inside: avoid; }
.signature-block div { border-top: 0.75pt solid var(--ink); padding-top: 1mm; font-size: 8pt; color: var(--muted); min-height: 12mm; }
.legend { display: flex; flex-wrap: wrap; gap: 2mm 4mm; font-size: 8pt; margin: 2mm 0 4mm; }
.fingerprint { font-family: var(--mono); font-size: 8pt; overflow-wrap: anywhere; }
footer.colophon { margin-top: 8mm; border-top: 0.75pt solid var(--rule-strong); padding-top: 2mm; font-size: 7.5pt; color: var(--muted); }

@page {
  size: A4;
  margin: 15mm 14mm 16mm 14mm;
  @top-center { content: element(pageHeader); }
  /* Margin boxes do not inherit the body's font; without one Chromium prints them in its serif default. */
  @bottom-left { content: "Vexdesk compliance attestation report"; font: 7pt "Helvetica Neue", Helvetica, Arial, "Liberation Sans", sans-serif; color: #4b5563; }
  @bottom-right { content: "Page " counter(page) " of " counter(pages); font: 7pt "Helvetica Neue", Helvetica, Arial, "Liberation Sans", sans-serif; color: #4b5563; }
}
@media screen {
  body { background: #e5e7eb; }
  .report-body { background: var(--paper); padding: 12mm 14mm; margin: 0 auto 10mm; box-shadow: 0 1px 4px rgba(0,0,0,0.2); }
  .running-header { position: sticky; top: 0; z-index: 1; }
}
@media print {
  body { font-size: 9.5pt; }
  .report-body { max-width: none; padding: 11mm 0 0; box-decoration-break: clone; -webkit-box-decoration-break: clone; }
  .running-header { position: fixed; top: 0; left: 0; right: 0; padding: 0 0 1.5mm; position: running(pageHeader); }
  .section-break { break-before: page; page-break-before: always; }
  a { text-decoration: none; }
}
@supports (position: running(pageHeader)) {
  @media print { .report-body { padding-top: 0; } }
}
`;
