/** Audit-coverage scenarios of the notifications route group. */
import { dataField, ok, type Scenario, type Team, type WithId } from './scenario';

/** Nothing listens on the discard port: deliveries fail fast, which the audit does not care about. */
const UNREACHABLE = 'http://127.0.0.1:9/hook';

async function channel(team: Team) {
  return ok(
    await team.api.post<WithId>('/api/notification-channels', { type: 'webhook', name: 'audited', url: UNREACHABLE }),
    'create channel',
  ).data;
}

async function rule(team: Team) {
  const created = await channel(team);
  return ok(
    await team.api.post<WithId>('/api/notification-rules', { name: 'audited', channelId: created.id }),
    'create rule',
  ).data;
}

export const notificationScenarios: Record<string, Scenario> = {
  createNotificationChannel: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/notification-channels', {
          type: 'email',
          name: 'psirt',
          recipients: ['psirt@example.test'],
        });
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  updateNotificationChannel: async (team) => {
    const created = await channel(team);
    return {
      act: async () => ({
        response: await team.api.put(`/api/notification-channels/${created.id}`, { name: 'renamed' }),
        entityId: created.id,
      }),
    };
  },
  deleteNotificationChannel: async (team) => {
    const created = await channel(team);
    return {
      act: async () => ({
        response: await team.api.delete(`/api/notification-channels/${created.id}`),
        entityId: created.id,
      }),
    };
  },
  rotateNotificationChannelSecret: async (team) => {
    const created = await channel(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/notification-channels/${created.id}/rotate-secret`, {}),
        entityId: created.id,
      }),
    };
  },
  testNotificationChannel: async (team) => {
    const created = await channel(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/notification-channels/${created.id}/test`, {}),
        entityId: created.id,
      }),
    };
  },
  createNotificationRule: async (team) => {
    const created = await channel(team);
    return {
      act: async () => {
        const response = await team.api.post('/api/notification-rules', { name: 'audited', channelId: created.id });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  updateNotificationRule: async (team) => {
    const created = await rule(team);
    return {
      act: async () => ({
        response: await team.api.put(`/api/notification-rules/${created.id}`, { mode: 'daily_digest' }),
        entityId: created.id,
      }),
    };
  },
  deleteNotificationRule: async (team) => {
    const created = await rule(team);
    return {
      act: async () => ({
        response: await team.api.delete(`/api/notification-rules/${created.id}`),
        entityId: created.id,
      }),
    };
  },
  redeliverNotification: async (team) => {
    const created = await channel(team);
    const tested = ok(
      await team.api.post<WithId>(`/api/notification-channels/${created.id}/test`, {}),
      'test channel',
    ).data;
    return {
      act: async () => ({
        response: await team.api.post(`/api/notification-deliveries/${tested.id}/redeliver`, {}),
        entityId: tested.id,
      }),
    };
  },
};
