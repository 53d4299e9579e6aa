/** Option values shared by the CLI's flags and the Action's inputs, checked once (bad values are exit 2). */
import { UsageError } from './errors';
import { GATE_SEVERITIES, type GatePolicy, type GateSeverity } from './gate-policy';

export function parseTimeout(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 600_000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--timeout must be a number of seconds, got "${raw}"`);
  return seconds * 1000;
}

export function parsePolicy(values: {
  failOn?: string | undefined;
  kev?: boolean | undefined;
  epss?: string | undefined;
  untriaged?: boolean | undefined;
  fixableOnly?: boolean | undefined;
  failOnUnscored?: boolean | undefined;
}): GatePolicy {
  const failOn = values.failOn?.trim().toLowerCase() || undefined;
  if (failOn !== undefined && !(GATE_SEVERITIES as readonly string[]).includes(failOn)) {
    throw new UsageError(`--fail-on must be one of ${GATE_SEVERITIES.join(', ')}, got "${values.failOn ?? ''}"`);
  }
  let epss: number | undefined;
  if (values.epss !== undefined && values.epss.trim() !== '') {
    epss = Number(values.epss);
    if (!Number.isFinite(epss) || epss < 0 || epss > 1)
      throw new UsageError(`--epss is a probability from 0 to 1 (e.g. 0.1), got "${values.epss}"`);
  }
  return {
    failOn: failOn as GateSeverity | undefined,
    kev: values.kev,
    epss,
    untriaged: values.untriaged,
    fixableOnly: values.fixableOnly,
    failOnUnscored: values.failOnUnscored,
  };
}
