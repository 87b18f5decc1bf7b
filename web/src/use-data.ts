import { useCallback, useEffect, useState } from 'preact/hooks';
import { type ApiError, api } from './api.ts';

export interface Data<T> {
  data: T | null;
  error: ApiError | Error | null;
  reload: () => Promise<void>;
}

/** GETs `path` (again whenever it changes); `reload` refetches without blanking what is shown. */
export function useData<T>(path: string | null): Data<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const reload = useCallback(async () => {
    if (!path) return;
    try {
      setData(await api<T>('GET', path));
      setError(null);
    } catch (err) {
      setError(err as Error);
    }
  }, [path]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}
