import { createGroupHandler } from '../../shared/service/http/group-handler';
import { notificationRoutes } from '../../shared/service/http/route-groups/notifications';
import { NotificationChannels } from '../../shared/service/notifications/channels';
import { Dispatch } from '../../shared/service/notifications/dispatch';
import { NotificationRules } from '../../shared/service/notifications/rules';

export const handler = createGroupHandler(notificationRoutes, {
  listNotificationChannels: async ({ caller }) => ({
    status: 200,
    body: { data: await NotificationChannels.list(caller.teamId) },
  }),
  createNotificationChannel: async ({ caller, body }) => ({
    status: 201,
    body: { data: await NotificationChannels.create(caller, body) },
  }),
  getNotificationChannel: async ({ caller, params }) => ({
    status: 200,
    body: { data: await NotificationChannels.get(caller.teamId, params.channelId) },
  }),
  updateNotificationChannel: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: await NotificationChannels.update(caller, params.channelId, body) },
  }),
  deleteNotificationChannel: async ({ caller, params }) => {
    await NotificationChannels.delete(caller, params.channelId);
    return { status: 204 };
  },
  rotateNotificationChannelSecret: async ({ caller, params }) => ({
    status: 200,
    body: { data: await NotificationChannels.rotateSecret(caller, params.channelId) },
  }),
  testNotificationChannel: async ({ caller, params }) => ({
    status: 200,
    body: { data: await NotificationChannels.test(caller, params.channelId) },
  }),
  listNotificationRules: async ({ caller }) => ({
    status: 200,
    body: { data: await NotificationRules.list(caller.teamId) },
  }),
  createNotificationRule: async ({ caller, body }) => ({
    status: 201,
    body: { data: await NotificationRules.create(caller, body) },
  }),
  getNotificationRule: async ({ caller, params }) => ({
    status: 200,
    body: { data: await NotificationRules.get(caller.teamId, params.ruleId) },
  }),
  updateNotificationRule: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: await NotificationRules.update(caller, params.ruleId, body) },
  }),
  deleteNotificationRule: async ({ caller, params }) => {
    await NotificationRules.delete(caller, params.ruleId);
    return { status: 204 };
  },
  listNotificationDeliveries: async ({ caller, query }) => ({
    status: 200,
    body: await Dispatch.listDeliveries(caller.teamId, query),
  }),
  redeliverNotification: async ({ caller, params }) => ({
    status: 202,
    body: { data: await Dispatch.redeliver(caller, params.deliveryId) },
  }),
});
