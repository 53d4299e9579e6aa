/** The team setting `cra` on the settings page: the manufacturer the CRA reports name, and where it sells. */
import { useState } from 'preact/hooks';
import { api, type Schemas } from '../../api/client';
import { ErrorMessage, Notice, Section } from '../../components';
import { useSaveResult, type Loaded } from '../../hooks';
// The codes the service accepts (a plain module, no zod): ISO 3166-1 alpha-2, Greece as GR.
import { EU_MEMBER_STATES } from '../../../../shared/service/cra/member-states';

type TeamSettings = Schemas['TeamSettings'];
type MemberState = (typeof EU_MEMBER_STATES)[number];

export function CraSettings({ manage, settings }: { manage: boolean; settings: Loaded<TeamSettings> }) {
  const { error, notice, start, settle } = useSaveResult();
  const current = settings.data?.cra;
  // The form's values as edited, over the saved ones (a checkbox's re-render must not undo typed text).
  const [draft, setDraft] = useState<Partial<Record<'manufacturerName' | 'contact' | 'mainEstablishment', string>>>({});
  const [chosen, setChosen] = useState<Set<MemberState> | undefined>();
  const states = chosen ?? new Set(current?.memberStates ?? []);
  const values = {
    manufacturerName: draft.manufacturerName ?? current?.manufacturerName ?? '',
    contact: draft.contact ?? current?.contact ?? '',
    mainEstablishment: draft.mainEstablishment ?? current?.mainEstablishment ?? '',
  };
  const edit = (field: keyof typeof values) => (event: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [field]: event.currentTarget.value });
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const manufacturerName = values.manufacturerName.trim();
    const contact = values.contact.trim();
    const main = values.mainEstablishment;
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
      setDraft({});
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
            <input
              name="manufacturerName"
              maxLength={255}
              value={values.manufacturerName}
              disabled={!manage}
              onInput={edit('manufacturerName')}
            />
          </label>
          <label>
            Contact
            <input name="contact" maxLength={500} value={values.contact} disabled={!manage} onInput={edit('contact')} />
          </label>
          <label>
            Main establishment
            <select
              name="mainEstablishment"
              value={values.mainEstablishment}
              disabled={!manage}
              onChange={edit('mainEstablishment')}
            >
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
