import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { must, useLoad, useTitle } from '../../hooks';
import { can, useMe } from '../../session';
import { Channels } from './Channels';
import { Deliveries } from './Deliveries';
import { Rules } from './Rules';

/** Settings → Notifications: where alerts go (channels), which go there (rules), and what became of each. */
export function NotificationsPage() {
  useTitle('Notifications');
  const me = useMe();
  const manage = can(me, 'settings:write');
  // One read of the channels: the rules and the log name them too.
  const channels = useLoad(() => must(api.GET('/api/notification-channels')), []);
  // A test sent from the channels is in the log at once: the log reads again.
  const [delivered, setDelivered] = useState(0);
  const channelList = channels.data?.data ?? [];
  return (
    <>
      <p class="crumbs">
        <a href="/settings">Settings</a> /
      </p>
      <h1>Notifications</h1>
      <p>
        Events of the team reach people through channels: signed webhooks, Slack and e-mail. Deliveries are retried for
        24 hours and logged below.
      </p>
      {!manage ? (
        <p class="notice">You can read these settings; changing them needs the “Manage settings” permission.</p>
      ) : null}
      <Channels manage={manage} channels={channels} onDelivered={() => setDelivered((count) => count + 1)} />
      <Rules manage={manage} channels={channelList} />
      <Deliveries manage={manage} channels={channelList} changed={delivered} />
    </>
  );
}
