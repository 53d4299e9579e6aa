import { createGroupHandler } from '../../shared/http/group-handler';

// Every route of this group is marked 'planned' in the route table and answers 501 until its issue lands.
export const handler = createGroupHandler('sboms', {});
