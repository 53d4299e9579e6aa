import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from './api/client';

export function ErrorMessage({ message }: { message: string | undefined }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}

export function Notice({ message }: { message: string | undefined }) {
  return (
    <p class="notice" role="status" aria-live="polite">
      {message ?? ''}
    </p>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  ) : null;
}

export function Pager({
  meta,
  onPage,
  label,
}: {
  meta: Schemas['PageMeta'] | undefined;
  onPage: (page: number) => void;
  label: string;
}) {
  if (!meta) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={!meta.hasPrevPage} onClick={() => onPage(meta.page - 1)}>
        Previous
      </button>
      <span>
        Page {meta.page} of {Math.max(meta.totalPages, 1)} · {meta.total} total
      </span>
      <button type="button" disabled={!meta.hasNextPage} onClick={() => onPage(meta.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replaceAll(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section aria-labelledby={headingId} class="card">
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** A table's header row: a column header per name, and an unnamed one (read by screen readers) for row actions. */
export function ColumnHeads({ names, actions = false }: { names: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th scope="col" key={name}>
            {name}
          </th>
        ))}
        {actions ? (
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** A text field of a submitted form, trimmed ('' when absent). */
export function fieldText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value.trim() : '';
}

/** A secret the service shows only in this answer (an API key, a signing secret): a read-only field, Copy and Done. */
export function ShownOnce({
  children,
  label,
  value,
  testId,
  onDone,
}: {
  children: ComponentChildren;
  label: string;
  value: string;
  testId: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState<string>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      setCopied('Copy it from the field above.');
    }
  };
  return (
    <div class="created-key" role="status">
      <p>{children}</p>
      <label>
        {label}
        <input
          readOnly
          value={value}
          class="mono"
          data-testid={testId}
          onFocus={(event) => event.currentTarget.select()}
        />
      </label>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
        <span>{copied}</span>
      </div>
    </div>
  );
}
