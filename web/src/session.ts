import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Schemas } from './api/client';

export type Me = Schemas['Me'];

export const MeContext = createContext<Me | undefined>(undefined);

/** The signed-in caller (pages under the shell only render once it is known). */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in shell');
  return me;
}

export function can(me: Me, scope: string): boolean {
  return me.scopes.includes(scope);
}
