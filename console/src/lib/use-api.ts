import { useEffect, useState } from 'react';

export type Loaded<T> = { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'done'; value: T };

/**
 * Loads what `load` answers whenever `key` changes (the page's address, its filters), dropping the
 * answer of a request a newer one replaced.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: string): [Loaded<T>, () => void] {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' });
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names everything `load` reads.
  useEffect(() => {
    const controller = new AbortController();
    setState({ status: 'loading' });
    load(controller.signal)
      .then((value) => !controller.signal.aborted && setState({ status: 'done', value }))
      .catch((error: unknown) => !controller.signal.aborted && setState({ status: 'error', error }));
    return () => controller.abort();
  }, [key, round]);
  return [state, () => setRound((n) => n + 1)];
}
