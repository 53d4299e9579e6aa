import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './api/client';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  /** The API's error code (`error.code`), when the failure was an API answer. */
  errorCode: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); a newer run's answer wins over an older one's. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; errorCode?: string; loading: boolean }>({
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const run = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => run === latest.current && setState({ data, loading: false }),
      (error: unknown) =>
        run === latest.current && setState({ error: errorText(error), errorCode: errorCodeOf(error), loading: false }),
    );
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data: state.data, error: state.error, errorCode: state.errorCode, loading: state.loading, reload };
}

function errorCodeOf(error: unknown): string | undefined {
  const inner =
    error && typeof error === 'object' && 'error' in error
      ? (error as { error?: { code?: unknown } }).error
      : undefined;
  return typeof inner?.code === 'string' ? inner.code : undefined;
}

/** openapi-fetch's `{ data, error }` as a value or a thrown error body. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  // The API's error body is thrown as is: errorText() reads its message.
  // oxlint-disable-next-line typescript/only-throw-error
  if (error !== undefined || !response.ok) throw error ?? new Error(`${response.status} ${response.statusText}`);
  return data as T;
}

/** A value that settles `delay` ms after its last change (search boxes). */
export function useDebounced<T>(value: T, delay = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

/** Document title per page (screen readers announce it on navigation). */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Vexdesk`;
  }, [title]);
}

export interface SaveResult {
  error: string | undefined;
  notice: string | undefined;
  /** Before a save: clears the last notice, so a second "Saved." is announced again. */
  start: () => void;
  /** After it: the API's error, or `saved` and then `onSaved` (a reload, usually). */
  settle: (failure: unknown, saved: string, onSaved?: () => void) => void;
}

/** The error and the notice of a form that saves with one request (the edit and settings forms). */
export function useSaveResult(): SaveResult {
  const [result, setResult] = useState<{ error?: string; notice?: string }>({});
  return {
    error: result.error,
    notice: result.notice,
    start: () => setResult((current) => ({ error: current.error })),
    settle: (failure, saved, onSaved) => {
      if (failure) setResult({ error: errorText(failure) });
      else {
        setResult({ notice: saved });
        onSaved?.();
      }
    },
  };
}
