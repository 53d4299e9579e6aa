/**
 * The code-level half of tenant isolation (docs/architecture/request-path.md "Tenant-scoped
 * credentials"): inside a team request, an SDK call that names another team's
 * partition key or object key is refused before it is sent. On AWS the
 * tenant-scoped credentials make IAM refuse it too; locally (no IAM in the
 * embedded engines) this guard is the only check, and it is the same code.
 */
import { keysTouchedBy, type AwsService } from './aws-call-log';
import { keys } from './data/keys';
import { currentContext } from './request-context';

export class CrossTeamAccessError extends Error {
  constructor(teamId: string, key: string) {
    super(`A request of team ${teamId} tried to reach ${key}, which belongs to another team`);
    this.name = 'CrossTeamAccessError';
  }
}

/** The first key of the call that belongs to a team other than `teamId`, if any. */
export function foreignKey(
  teamId: string,
  service: AwsService,
  commandName: string,
  input: Record<string, unknown>,
): string | undefined {
  const { partitionKeys, objectKeys } = keysTouchedBy(service, commandName, input);
  const own = keys.teamScope(teamId);
  const { partitionPrefix, objectPrefixes } = keys.teamOwned();
  const foreignPartition = partitionKeys.find(
    (pk) => pk.startsWith(partitionPrefix) && pk !== own.partition && !pk.startsWith(`${own.partition}#`),
  );
  if (foreignPartition !== undefined) return foreignPartition;
  return objectKeys.find(
    (key) =>
      objectPrefixes.some((prefix) => key.startsWith(prefix)) &&
      !own.objectPrefixes.some((prefix) => key.startsWith(prefix)),
  );
}

type Next = (args: { input: object }) => Promise<unknown>;
type Middleware = (next: Next, context: { commandName?: string }) => Next;
interface ClientWithStack {
  middlewareStack: { add(middleware: never, options: { step: 'initialize'; name: string; priority: 'low' }): void };
}

/** Adds the guard to a DynamoDB or S3 client; outside a team request it lets every call through. */
export function guardTeamKeys(client: ClientWithStack, service: AwsService): void {
  const middleware: Middleware = (next, context) => async (args) => {
    const { teamId } = currentContext();
    if (teamId !== undefined) {
      const foreign = foreignKey(
        teamId,
        service,
        context.commandName ?? 'Unknown',
        args.input as Record<string, unknown>,
      );
      if (foreign !== undefined) throw new CrossTeamAccessError(teamId, foreign);
    }
    return next(args);
  };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'vexdeskTenantGuard', priority: 'low' });
}
