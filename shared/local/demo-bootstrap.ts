/**
 * First-start bootstrap (BRIEF "Contract the local runtime keeps"): a demo team,
 * a member holding settings.manage, and an all-scopes API key written once to
 * `$DATA_DIR/bootstrap.json` as `{ teamId, memberId, apiKey }`.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiKeys } from '../identity/api-keys';
import { Members, Teams } from '../identity/teams';
import { OPERATOR_ACTOR } from '../identity/actor';
import { SCOPES } from '../http/scopes';

export interface BootstrapRecord {
  teamId: string;
  memberId: string;
  apiKey: string;
}

export async function ensureDemoTeam(dataDir: string): Promise<{ record: BootstrapRecord; created: boolean }> {
  const file = join(dataDir, 'bootstrap.json');
  if (existsSync(file)) return { record: JSON.parse(await readFile(file, 'utf8')) as BootstrapRecord, created: false };
  const team = await Teams.create('Demo team', OPERATOR_ACTOR);
  const member = await Members.add(team.id, { email: 'demo@vexdesk.local', name: 'Demo Admin', permissions: ['settings.manage'] }, OPERATOR_ACTOR);
  const key = await ApiKeys.create(team.id, { name: 'demo', scopes: [...SCOPES] }, { byMemberId: member.id, operator: OPERATOR_ACTOR });
  const record = { teamId: team.id, memberId: member.id, apiKey: key.key };
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  return { record, created: true };
}
