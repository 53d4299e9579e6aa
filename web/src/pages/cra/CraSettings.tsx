/** The team setting `cra` on the settings page: the manufacturer the CRA reports name, and where it sells. */
import { useState } from 'preact/hooks';
import { api, type Schemas } from '../../api/client';
import { ErrorMessage, fieldText, Notice, Section } from '../../components';
import { useSaveResult, type Loaded } from '../../hooks';
// The codes the service accepts (a plain module, no zod): ISO 3166-1 alpha-2, Greece as GR.
import { EU_MEMBER_STATES } from '../../../../shared/service/cra/member-states';

type TeamSettings = Schemas['TeamSettings'];
type MemberState = (typeof EU_MEMBER_STATES)[number];

export function CraSettings({ manage, settings }: { manage: boolean; settings: Loaded<TeamSettings> }) {
  const { error, notice, start, settle } = useSaveResult();
  const current = settings.data?.cra;
  const [chosen, setChosen] = useState<Set<MemberState> | undefined>();
  const states = chosen ?? new Set(current?.memberStates ?? []);
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const manufacturerName = fieldText(form, 'manufacturerName');
    const contact = fieldText(form, 'contact');
    const main = fieldText(form, 'mainEstablishment');
    start();
    const { error: failure } = await api.PUT('/api/settings', {
      body: {
        cra: {
          ...(manufacturerName ? { manufacturerName } : {}),
          ...(contact ? { contact } : {}),
          mainEstablishment: main ? (main as MemberState) : null,
          memberStates: [...states],
        },
      },
    });
    settle(failure, 'CRA details saved.', () => {
      setChosen(undefined);
      settings.reload();
    });
  };
  return (
    <Section title="CRA reporting">
      <p class="muted">
        The manufacturer the Article 14 reports name, the Member State of its main establishment (it decides the CSIRT
        designated as coordinator) and the Member States where the products are made available. Which products are on
        the EU market is set on each product's page.
      </p>
      <ErrorMessage message={error ?? settings.error} />
      {current ? (
        <form class="grid-form" aria-label="CRA reporting details" onSubmit={(event) => void save(event)}>
          <label>
            Manufacturer name
            <input name="manufacturerName" maxLength={255} value={current.manufacturerName} disabled={!manage} />
          </label>
          <label>
            Contact
            <input name="contact" maxLength={500} value={current.contact} disabled={!manage} />
          </label>
          <label>
            Main establishment
            <select name="mainEstablishment" value={current.mainEstablishment ?? ''} disabled={!manage}>
              <option value="">Not set</option>
              {EU_MEMBER_STATES.map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </select>
          </label>
          <fieldset class="wide member-states">
            <legend>Made available in</legend>
            {EU_MEMBER_STATES.map((code) => (
              <label class="check" key={code}>
                <input
                  type="checkbox"
                  checked={states.has(code)}
                  disabled={!manage}
                  onChange={(event) => {
                    const next = new Set(states);
                    if (event.currentTarget.checked) next.add(code);
                    else next.delete(code);
                    setChosen(next);
                  }}
                />
                {code}
              </label>
            ))}
          </fieldset>
          <div class="actions">
            {manage ? (
              <button type="submit" class="primary">
                Save CRA details
              </button>
            ) : null}
            <Notice message={notice} />
          </div>
        </form>
      ) : null}
    </Section>
  );
}
